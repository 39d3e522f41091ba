namespace SlimPool.Tests.Composition;

/// <summary>What became of a queue call.</summary>
internal enum AcceptState
{
    /// <summary>The call has not returned (yet).</summary>
    Pending,

    /// <summary>It returned normally (or true): the item must run once or come back once.</summary>
    Accepted,

    /// <summary>It returned false or threw ObjectDisposedException: the item must never run.</summary>
    Refused,
}

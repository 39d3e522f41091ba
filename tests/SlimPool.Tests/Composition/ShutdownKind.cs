namespace SlimPool.Tests.Composition;

/// <summary>How a generated program shuts the pool or a group down.</summary>
internal enum ShutdownKind
{
    /// <summary><c>ShutdownAsync(ShutdownMode.Drain)</c>, waited for.</summary>
    Drain,

    /// <summary><c>ShutdownAsync(ShutdownMode.Abandon)</c>, waited for; the items handed back are run by the test.</summary>
    Abandon,

    /// <summary><c>ShutdownAsync(ShutdownMode.Drain, token)</c> with the token cancelled a few ms later.</summary>
    CancelledDrain,

    /// <summary><c>Dispose()</c>: a drain.</summary>
    Dispose,
}

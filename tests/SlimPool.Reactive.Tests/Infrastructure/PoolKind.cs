namespace SlimPool.Reactive.Tests.Infrastructure;

/// <summary>What a differential test runs its scenario on.</summary>
public enum PoolKind
{
    /// <summary>A <see cref="SlimThreadPool"/> of four workers.</summary>
    Slim,

    /// <summary>A serial group (<c>MaxConcurrency</c> 1) of a four-worker <see cref="SlimThreadPool"/>.</summary>
    SerialGroup,

    /// <summary>The built-in pool, through <see cref="ManagedThreadPool"/>.</summary>
    Managed,
}

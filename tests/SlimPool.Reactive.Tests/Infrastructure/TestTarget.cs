using SlimPool.Tests.Infrastructure;

namespace SlimPool.Reactive.Tests.Infrastructure;

/// <summary>A pool (or group) of a <see cref="PoolKind"/>, with a way to tell whether the current thread is one of its workers.</summary>
internal sealed class TestTarget : IDisposable
{
    public const int Workers = 4;

    private readonly SlimThreadPool? _slim;

    private TestTarget(IThreadPool pool, SlimThreadPool? slim)
    {
        Pool = pool;
        _slim = slim;
    }

    public IThreadPool Pool { get; }

    /// <summary>Whether the current thread runs the target's items: a worker of the SlimPool (named "{pool name} #n"), or a built-in pool thread.</summary>
    public bool IsOnPool() => _slim is null
        ? Thread.CurrentThread.IsThreadPoolThread
        : Thread.CurrentThread.Name?.StartsWith(_slim.Name + " #", StringComparison.Ordinal) == true;

    public static TestTarget Create(PoolKind kind, [System.Runtime.CompilerServices.CallerMemberName] string name = "")
    {
        if (kind == PoolKind.Managed)
        {
            return new TestTarget(new ManagedThreadPool(), slim: null);
        }

        SlimThreadPool pool = TestPools.Create(Workers, name: "Rx " + name);
        return kind == PoolKind.Slim
            ? new TestTarget(pool, pool)
            : new TestTarget(pool.CreateGroup(new SlimGroupOptions { MaxConcurrency = 1 }), pool);
    }

    public void Dispose()
    {
        Pool.Dispose();
        _slim?.Dispose();
    }
}

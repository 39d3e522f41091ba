using Microsoft.Extensions.DependencyInjection;
using SlimPool.Extensions.DependencyInjection;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.DependencyInjection;

/// <summary>Disposing the container drains the pools it created: every accepted item runs, then the pool refuses work.</summary>
public sealed class ContainerDisposalTests
{
    private const int Items = 1_000;

    [Fact]
    public void Dispose_ServiceProvider_RunsEveryAcceptedItemThenRejectsWork()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool(options => options.WorkerCount = 2);
        ServiceProvider provider = services.BuildServiceProvider();
        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();
        int ran = 0;

        for (int i = 0; i < Items; i++)
        {
            pool.Queue(() =>
            {
                Interlocked.Increment(ref ran);
                Thread.Sleep(1);
            });
        }

        Bounded.Run(provider.Dispose, "ServiceProvider.Dispose");

        Assert.Equal(Items, Volatile.Read(ref ran));
        Assert.False(pool.TryQueue(() => { }));
        Assert.Throws<ObjectDisposedException>(() => pool.Queue(() => { }));
    }

    [Fact]
    public async Task DisposeAsync_ServiceProvider_DrainsEveryKeyedPool()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool("cpu", options => options.WorkerCount = 2);
        services.AddSlimThreadPool("io", options => options.WorkerCount = 1);
        ServiceProvider provider = services.BuildServiceProvider();
        SlimThreadPool cpu = provider.GetRequiredKeyedService<SlimThreadPool>("cpu");
        IThreadPool io = provider.GetRequiredKeyedService<IThreadPool>("io");
        int ranCpu = 0;
        int ranIo = 0;

        for (int i = 0; i < Items; i++)
        {
            cpu.Queue(() =>
            {
                Interlocked.Increment(ref ranCpu);
                Thread.SpinWait(100);
            });
            io.Queue(() =>
            {
                Interlocked.Increment(ref ranIo);
                Thread.SpinWait(100);
            });
        }

        await provider.DisposeAsync().AsTask().WaitAsync(Bounded.Timeout);

        Assert.Equal(Items, Volatile.Read(ref ranCpu));
        Assert.Equal(Items, Volatile.Read(ref ranIo));
        Assert.False(cpu.TryQueue(() => { }));
        Assert.False(io.TryQueue(() => { }));
    }

    [Fact]
    public void Dispose_PoolResolvedAsBothServices_DisposesItOnceWithoutError()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool(options => options.WorkerCount = 1);
        ServiceProvider provider = services.BuildServiceProvider();
        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();
        IThreadPool same = provider.GetRequiredService<IThreadPool>();
        using var done = new CountdownEvent(10);
        for (int i = 0; i < 10; i++)
        {
            same.Queue(() => done.Signal());
        }

        Bounded.Run(provider.Dispose, "ServiceProvider.Dispose");

        Assert.Equal(0, done.CurrentCount);
        Assert.Equal(0, pool.LiveWorkerCount);
        Assert.False(same.TryQueue(() => { }));
        pool.Dispose(); // idempotent: a second disposal by the owner is harmless
    }

    [Fact]
    public void Dispose_PoolNeverResolved_CreatesNoPool()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool();
        ServiceProvider provider = services.BuildServiceProvider();
        SlimThreadPoolTracker tracker = provider.GetRequiredService<SlimThreadPoolTracker>();

        Bounded.Run(provider.Dispose, "ServiceProvider.Dispose");

        Assert.Empty(tracker.Snapshot());
    }
}

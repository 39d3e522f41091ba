using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using SlimPool.Extensions.DependencyInjection;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.DependencyInjection;

/// <summary>Under the generic host, stopping the host shuts down the pools: a drain, or an abandon once the host's shutdown timeout expires.</summary>
public sealed class HostShutdownTests
{
    [Fact]
    public async Task StopAsync_Host_DrainsEveryPoolItCreated()
    {
        const int Items = 1_000;
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddSlimThreadPool(options => options.WorkerCount = 2);
        builder.Services.AddSlimThreadPool("io", options => options.WorkerCount = 1);
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Bounded.Timeout);
        SlimThreadPool pool = host.Services.GetRequiredService<SlimThreadPool>();
        SlimThreadPool io = host.Services.GetRequiredKeyedService<SlimThreadPool>("io");
        int ran = 0;
        for (int i = 0; i < Items; i++)
        {
            pool.Queue(() =>
            {
                Interlocked.Increment(ref ran);
                Thread.Sleep(1);
            });
            io.Queue(() => Interlocked.Increment(ref ran));
        }

        await host.StopAsync().WaitAsync(Bounded.Timeout);

        // Drained by the hosted service, before the container (and so the pools) is disposed.
        Assert.Equal(2 * Items, Volatile.Read(ref ran));
        Assert.False(pool.TryQueue(() => { }));
        Assert.False(io.TryQueue(() => { }));
        Assert.Equal(0, pool.LiveWorkerCount);
    }

    [Fact]
    public async Task StopAsync_KeyedPoolBoundFromHostConfiguration_IsConfiguredAndDrained()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Pools:io:WorkerCount"] = "3",
            ["Pools:io:BoundedCapacity"] = "500",
        });
        builder.Services.AddSlimThreadPool("io").BindConfiguration("Pools:io"); // the README's example
        builder.Services.AddSingleton<KeyedPoolConsumer>();
        builder.Services.AddSlimThreadPool("cpu", options => options.WorkerCount = 1);
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Bounded.Timeout);
        SlimThreadPool io = (SlimThreadPool)host.Services.GetRequiredService<KeyedPoolConsumer>().Io;
        int ran = 0;
        for (int i = 0; i < 200; i++)
        {
            await io.QueueAsync(() => Interlocked.Increment(ref ran)).AsTask().WaitAsync(Bounded.Timeout);
        }

        await host.StopAsync().WaitAsync(Bounded.Timeout);

        Assert.Equal("io", io.Name);
        Assert.Equal(3, io.WorkerCount);
        Assert.Equal(200, Volatile.Read(ref ran));
    }

    [Fact]
    public async Task StopAsync_ShutdownTimeoutExpires_AbandonsTheQueuedItemsAndLogsTheirCount()
    {
        const int Items = 100;
        var logs = new CapturingLoggerProvider();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Logging.AddProvider(logs);
        builder.Services.Configure<HostOptions>(options => options.ShutdownTimeout = TimeSpan.FromMilliseconds(200));
        builder.Services.AddSlimThreadPool("slow", options =>
        {
            options.WorkerCount = 1;
            options.StarvationTimeout = Timeout.InfiniteTimeSpan; // no spare worker may rescue the queue
        });
        using var probe = new StoppingTokenProbe();
        builder.Services.AddSingleton<IHostedService>(probe); // after the pools: stopped first, with the same token
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Bounded.Timeout);
        SlimThreadPool pool = host.Services.GetRequiredKeyedService<SlimThreadPool>("slow");
        using var started = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        pool.Queue(() =>
        {
            started.Set();
            release.Wait(Bounded.Timeout);
        });
        Bounded.Wait(started, "the blocking item to start");
        int ran = 0;
        for (int i = 0; i < Items; i++)
        {
            pool.Queue(() => Interlocked.Increment(ref ran));
        }

        Task stop = host.StopAsync();
        Bounded.Wait(probe.Cancelled, "the host's shutdown timeout to cancel the stopping token");
        Thread.Sleep(50); // margin, should the token's callbacks not run the last registered first
        release.Set();
        await stop.WaitAsync(Bounded.Timeout);

        CapturedLog warning = Assert.Single(logs.Logs, log => log.EventId.Name == "SlimThreadPoolAbandoned");
        int abandoned = Assert.IsType<int>(warning.Values["AbandonedCount"]);
        Assert.Equal(LogLevel.Warning, warning.Level);
        Assert.Equal("slow", warning.Values["PoolName"]);
        Assert.Contains("slow", warning.Message, StringComparison.Ordinal);
        Assert.InRange(abandoned, 1, Items);
        Assert.InRange(Assert.IsType<int>(warning.Values["RunningCount"]), 0, 1); // the blocking item, if still running
        Assert.Equal(Items, abandoned + Volatile.Read(ref ran)); // each queued item either ran or was abandoned
        Assert.False(pool.TryQueue(() => { }));
    }

    [Fact]
    public async Task StopAsync_Drained_LogsAtDebugOnly()
    {
        var logs = new CapturingLoggerProvider();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Logging.AddProvider(logs).SetMinimumLevel(LogLevel.Debug);
        builder.Services.AddSlimThreadPool(options => options.WorkerCount = 1);
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Bounded.Timeout);
        _ = host.Services.GetRequiredService<IThreadPool>();

        await host.StopAsync().WaitAsync(Bounded.Timeout);

        Assert.DoesNotContain(logs.Logs, log => log.Level >= LogLevel.Warning && log.EventId.Name == "SlimThreadPoolAbandoned");
        CapturedLog drained = Assert.Single(logs.Logs, log => log.EventId.Name == "SlimThreadPoolDrained");
        Assert.Equal(LogLevel.Debug, drained.Level);
    }

    [Fact]
    public async Task StopAsync_PoolsNobodyResolved_AreNotCreated()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddSlimThreadPool("used", options => options.WorkerCount = 1);
        builder.Services.AddSlimThreadPool("unused", options => options.WorkerCount = 1);
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Bounded.Timeout);
        SlimThreadPool used = host.Services.GetRequiredKeyedService<SlimThreadPool>("used");

        await host.StopAsync().WaitAsync(Bounded.Timeout);

        SlimThreadPool only = Assert.Single(host.Services.GetRequiredService<SlimThreadPoolTracker>().Snapshot());
        Assert.Same(used, only);
        Assert.False(used.TryQueue(() => { }));
    }

    [Fact]
    public async Task StopAsync_NoLoggingRegistered_StillDrains()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool(options => options.WorkerCount = 1);
        await using ServiceProvider provider = services.BuildServiceProvider();
        SlimThreadPool pool = provider.GetRequiredService<SlimThreadPool>();
        int ran = 0;
        for (int i = 0; i < 100; i++)
        {
            pool.Queue(() => Interlocked.Increment(ref ran));
        }

        IHostedService hosted = Assert.Single(provider.GetServices<IHostedService>());
        await hosted.StopAsync(CancellationToken.None).WaitAsync(Bounded.Timeout);

        Assert.Equal(100, Volatile.Read(ref ran));
        Assert.False(pool.TryQueue(() => { }));
    }

    [Fact]
    public void AddSlimThreadPool_ManyPools_RegistersTheHostedServiceOnce()
    {
        var services = new ServiceCollection();
        services.AddSlimThreadPool();
        services.AddSlimThreadPool("a");
        services.AddSlimThreadPool("b");
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IHostedService, SlimThreadPoolHostedService>());

        Assert.Single(services, d => d.ServiceType == typeof(IHostedService));
    }

    [Fact]
    public async Task StopAsync_NoLoggerAndAnAbandon_ReportsItToTrace()
    {
        // Without a logger the abandon used to go unreported; it must reach Trace instead.
        var tracker = new SlimThreadPoolTracker();
        var pool = new SlimThreadPool(new SlimThreadPoolOptions { WorkerCount = 1, Name = "untraced-pool-abandon", StarvationTimeout = Timeout.InfiniteTimeSpan });
        tracker.Add(pool);
        var blocked = new BlockedWorkers(pool);
        pool.Queue(() => { });
        var trace = new CapturingTraceListener();
        System.Diagnostics.Trace.Listeners.Add(trace);
        try
        {
            using var cancelled = new CancellationTokenSource();
            await cancelled.CancelAsync();
            await new SlimThreadPoolHostedService(tracker, logger: null).StopAsync(cancelled.Token).WaitAsync(Bounded.Timeout);
        }
        finally
        {
            System.Diagnostics.Trace.Listeners.Remove(trace);
            blocked.Release();
            Bounded.Run(pool.Dispose, "disposing the pool");
        }

        Assert.Contains(trace.Messages, message => message.Contains("untraced-pool-abandon", StringComparison.Ordinal) && message.Contains("1 queued items were not run", StringComparison.Ordinal));
    }

    private sealed class CapturingTraceListener : System.Diagnostics.TraceListener
    {
        private readonly System.Collections.Concurrent.ConcurrentQueue<string> _messages = new();

        public IReadOnlyCollection<string> Messages => _messages;

        public override void Write(string? message) => _messages.Enqueue(message ?? string.Empty);

        public override void WriteLine(string? message) => _messages.Enqueue(message ?? string.Empty);
    }
}

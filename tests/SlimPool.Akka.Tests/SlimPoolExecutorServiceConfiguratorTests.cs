using Akka.Configuration;
using Akka.Dispatch;

namespace SlimPool.Akka.Tests;

public sealed class SlimPoolExecutorServiceConfiguratorTests
{
    private const string Id = "my-dispatcher";

    private static SlimPoolExecutorServiceConfigurator Configure(string slimPoolBlock) =>
        new(ConfigurationFactory.ParseString($"id = {Id}\n{slimPoolBlock}"), prerequisites: null!);

    [Fact]
    public void Constructor_NoSlimPoolBlock_UsesOneWorkerPerCoreNamedForTheDispatcherAndNoSynchronizationContext()
    {
        SlimThreadPoolOptions options = Configure(string.Empty).Options;

        Assert.Equal(Environment.ProcessorCount, options.WorkerCount);
        Assert.Equal(WorkQueueKind.WorkStealing, options.Queue);
        Assert.Equal(IdleWaitKind.SpinThenPark, options.IdleWait);
        Assert.Equal(TimeSpan.FromMilliseconds(50), options.StarvationTimeout);
        Assert.Null(options.MaxWorkers);
        Assert.Equal(Id, options.Name);
        Assert.False(options.UseSynchronizationContext);
    }

    [Fact]
    public void Constructor_EverySetting_IsRead()
    {
        SlimThreadPoolOptions options = Configure("""
            slim-pool {
              worker-count = 3
              queue = lock-free
              idle-wait = auto-reset-event
              starvation-timeout = 200ms
              max-workers = 7
              thread-name-prefix = "actors"
              slow-item-threshold = 250ms
            }
            """).Options;

        Assert.Equal(3, options.WorkerCount);
        Assert.Equal(WorkQueueKind.LockFree, options.Queue);
        Assert.Equal(IdleWaitKind.AutoResetEvent, options.IdleWait);
        Assert.Equal(TimeSpan.FromMilliseconds(200), options.StarvationTimeout);
        Assert.Equal(7, options.MaxWorkers);
        Assert.Equal("actors", options.Name);
        Assert.Equal(TimeSpan.FromMilliseconds(250), options.SlowItemThreshold);
    }

    [Theory]
    [InlineData("locked", WorkQueueKind.Locked)]
    [InlineData("work-stealing", WorkQueueKind.WorkStealing)]
    public void Constructor_Queue_MapsToTheKind(string value, WorkQueueKind expected) =>
        Assert.Equal(expected, Configure($"slim-pool.queue = {value}").Options.Queue);

    [Theory]
    [InlineData("off")]
    [InlineData("infinite")]
    public void Constructor_StarvationTimeoutOff_TurnsTheGuardOff(string value) =>
        Assert.Equal(Timeout.InfiniteTimeSpan, Configure($"slim-pool.starvation-timeout = {value}").Options.StarvationTimeout);

    [Theory]
    [InlineData("off")]
    [InlineData("infinite")]
    public void Constructor_SlowItemThresholdOff_LeavesTheDetectorOff(string value) =>
        Assert.Equal(Timeout.InfiniteTimeSpan, Configure($"slim-pool.slow-item-threshold = {value}").Options.SlowItemThreshold);

    [Theory]
    [InlineData("worker-count = -1", "worker-count")]
    [InlineData("worker-count = 40000", "worker-count")]
    [InlineData("worker-count = many", "worker-count")]
    [InlineData("queue = fifo", "queue")]
    [InlineData("idle-wait = sleep", "idle-wait")]
    [InlineData("starvation-timeout = soon", "starvation-timeout")]
    [InlineData("starvation-timeout = 0ms", "starvation-timeout")]
    [InlineData("slow-item-threshold = 0ms", "slow-item-threshold")]
    [InlineData("slow-item-threshold = later", "slow-item-threshold")]
    [InlineData("worker-count = 4\nmax-workers = 2", "max-workers")]
    [InlineData("max-workers = -3", "max-workers")]
    [InlineData("max-workers = 40000", "max-workers")]
    public void Constructor_InvalidSetting_ThrowsConfigurationExceptionNamingTheKeysFullPath(string setting, string key)
    {
        var exception = Assert.Throws<ConfigurationException>(() => Configure($"slim-pool {{\n{setting}\n}}"));

        Assert.Contains($"{Id}.slim-pool.{key}", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Constructor_UnknownKey_ThrowsConfigurationExceptionNamingItAndTheValidKeys()
    {
        var exception = Assert.Throws<ConfigurationException>(() => Configure("slim-pool {\nworker-cout = 2\n}"));

        Assert.Contains($"{Id}.slim-pool.worker-cout", exception.Message, StringComparison.Ordinal);
        Assert.Contains("worker-count, queue, idle-wait, starvation-timeout, max-workers, thread-name-prefix, slow-item-threshold", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Constructor_SlimPoolIsNotABlock_ThrowsConfigurationExceptionNamingIt()
    {
        var exception = Assert.Throws<ConfigurationException>(() => Configure("slim-pool = 5"));

        Assert.Contains($"{Id}.slim-pool = \"5\"", exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Produce_EachCall_IsANewPoolThatRunsRunnablesAndShutsDown()
    {
        var configurator = Configure("slim-pool.worker-count = 1");
        ExecutorService first = configurator.Produce(Id);
        ExecutorService second = configurator.Produce(Id);
        var ran = new TaskCompletionSource<string?>(TaskCreationOptions.RunContinuationsAsynchronously);

        first.Execute(new ActionRunnable(() => ran.SetResult(Thread.CurrentThread.Name)));

        Assert.StartsWith(Id + " #", SlimPool.Tests.Infrastructure.Bounded.Result(ran.Task, "the runnable"), StringComparison.Ordinal);
        Assert.NotSame(((SlimPoolExecutorService)first).Pool, ((SlimPoolExecutorService)second).Pool);
        first.Shutdown();
        second.Shutdown();
        Assert.Throws<RejectedExecutionException>(() => first.Execute(new ActionRunnable(() => { })));
        Assert.Throws<ArgumentNullException>(() => second.Execute(null!));
    }
}

using SlimPool.Queues;

namespace SlimPool.Tests.Pools;

public sealed class SlimThreadPoolOptionsTests
{
    [Fact]
    public void Defaults_AreTheDocumentedOnes()
    {
        var options = new SlimThreadPoolOptions();

        Assert.Equal(Environment.ProcessorCount, options.WorkerCount);
        Assert.Equal(WorkQueueKind.WorkStealing, options.Queue);
        Assert.Equal(IdleWaitKind.SpinThenPark, options.IdleWait);
        Assert.Null(options.QueueFactory);
        Assert.False(options.FlowExecutionContext);
        Assert.Equal("SlimPool", options.Name);
        Assert.Null(options.UnhandledException);
        Assert.Null(options.MaxWorkers);
        Assert.Equal(TimeSpan.FromSeconds(5), options.SpareWorkerIdleTimeout);
        Assert.Equal(TimeSpan.FromMilliseconds(50), options.StarvationTimeout);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    [InlineData(int.MinValue)]
    [InlineData(SlimThreadPoolOptions.MaxWorkerCount + 1)]
    public void WorkerCount_OutOfRange_ThrowsNamingTheOption(int workerCount)
    {
        var exception = Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { WorkerCount = workerCount });

        Assert.Equal(nameof(SlimThreadPoolOptions.WorkerCount), exception.ParamName);
        Assert.Equal(workerCount, exception.ActualValue);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(SlimThreadPoolOptions.MaxWorkerCount)]
    public void WorkerCount_AtTheLimits_IsAccepted(int workerCount)
    {
        var options = new SlimThreadPoolOptions { WorkerCount = workerCount };

        Assert.Equal(workerCount, options.WorkerCount);
    }

    [Fact]
    public void Queue_UndefinedValue_ThrowsNamingTheOption()
    {
        var exception = Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { Queue = (WorkQueueKind)42 });

        Assert.Equal(nameof(SlimThreadPoolOptions.Queue), exception.ParamName);
    }

    [Fact]
    public void IdleWait_UndefinedValue_ThrowsNamingTheOption()
    {
        var exception = Assert.Throws<ArgumentOutOfRangeException>(() => new SlimThreadPoolOptions { IdleWait = (IdleWaitKind)(-1) });

        Assert.Equal(nameof(SlimThreadPoolOptions.IdleWait), exception.ParamName);
    }

    [Fact]
    public void Name_Null_ThrowsNamingTheOption()
    {
        var exception = Assert.Throws<ArgumentNullException>(() => new SlimThreadPoolOptions { Name = null! });

        Assert.Equal(nameof(SlimThreadPoolOptions.Name), exception.ParamName);
    }

    [Fact]
    public void Constructor_NullOptions_ThrowsArgumentNullException()
    {
        var exception = Assert.Throws<ArgumentNullException>(() => new SlimThreadPool(null!));

        Assert.Equal("options", exception.ParamName);
    }

    [Fact]
    public void Constructor_QueueFactoryReturnsNull_ThrowsInvalidOperationException()
    {
        var options = new SlimThreadPoolOptions { QueueFactory = () => null! };

        var exception = Assert.Throws<InvalidOperationException>(() => new SlimThreadPool(options));

        Assert.Contains(nameof(SlimThreadPoolOptions.QueueFactory), exception.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Constructor_CopiesOptions_LaterChangesDoNotAffectThePool()
    {
        var options = new SlimThreadPoolOptions { WorkerCount = 1 };
        using var pool = new SlimThreadPool(options);

        options.WorkerCount = 3;

        Assert.Equal(1, pool.WorkerCount);
    }

    [Fact]
    public void QueueFactory_Set_OverridesQueueKind()
    {
        int created = 0;
        var options = new SlimThreadPoolOptions
        {
            Queue = WorkQueueKind.Locked,
            QueueFactory = () =>
            {
                Interlocked.Increment(ref created);
                return new LockFreeWorkQueue();
            },
        };

        using var pool = new SlimThreadPool(options);

        Assert.Equal(1, created);
    }
}

namespace SlimPool.Tests.Pools;

/// <summary>The cancellable overloads' default implementations, as an <see cref="IThreadPool"/> written before them gets them.</summary>
public sealed class ThreadPoolDefaultMethodsTests
{
    [Fact]
    public void QueueWithToken_CancelledBeforeItRuns_SkipsTheItem()
    {
        var pool = new RecordingPool();
        using var cancellation = new CancellationTokenSource();
        int ran = 0;

        IThreadPool asInterface = pool;
        asInterface.Queue(() => ran++, cancellation.Token);
        Assert.True(asInterface.TryQueue(static s => ((StrongBox)s!).Value++, new StrongBox(), cancellation.Token));
        cancellation.Cancel();
        pool.RunAll();

        Assert.Equal(0, ran);
        Assert.Equal(2, pool.Queued.Count);
    }

    [Fact]
    public void QueueWithToken_LiveToken_RunsTheItem()
    {
        var pool = new RecordingPool();
        using var cancellation = new CancellationTokenSource();
        var box = new StrongBox();

        IThreadPool asInterface = pool;
        asInterface.Queue(static s => ((StrongBox)s!).Value++, box, cancellation.Token);
        asInterface.Queue(new Increment(box), cancellation.Token);
        Assert.True(asInterface.TryQueue(() => box.Value++, cancellation.Token));
        pool.RunAll();

        Assert.Equal(3, box.Value);
    }

    [Fact]
    public void QueueWithToken_None_PassesTheItemThroughUnwrapped()
    {
        var pool = new RecordingPool();
        Action callback = () => { };
        var item = new Increment(new StrongBox());

        IThreadPool asInterface = pool;
        asInterface.Queue(callback, CancellationToken.None);
        Assert.True(asInterface.TryQueue(item, CancellationToken.None));

        Assert.Same(callback, pool.Queued[0]);
        Assert.Same(item, pool.Queued[1]);
    }

    [Fact]
    public void QueueNativeItems_DefaultImplementations_RunTheItemAndTheTypedState()
    {
        var pool = new RecordingPool();
        var box = new StrongBox();

        IThreadPool asInterface = pool;
        asInterface.Queue(new NativeIncrement(box), preferLocal: true);
        Assert.True(asInterface.TryQueue(new NativeIncrement(box), preferLocal: false));
        asInterface.Queue(static b => b.Value += 10, box, preferLocal: false);
        Assert.True(asInterface.TryQueue(static s => s.Box.Value += s.Amount, (Box: box, Amount: 100), preferLocal: true));
        pool.RunAll();

        Assert.Equal(112, box.Value);
        Assert.Equal(4, pool.Queued.Count);
    }

    [Fact]
    public async Task RunAndTaskScheduler_PoolWrittenBeforeThem_RunEachTaskAsOneOfThePoolsItems()
    {
        var pool = new RecordingPool();
        IThreadPool asInterface = pool;
        Task<int> result = asInterface.Run(() => 42);
        Task<int> started = Task.Factory.StartNew(() => 7, CancellationToken.None, TaskCreationOptions.None, asInterface.TaskScheduler);
        Assert.Same(asInterface.TaskScheduler, asInterface.TaskScheduler);
        Assert.False(result.IsCompleted); // queued as an item, not run inline
        Assert.Equal(2, pool.Queued.Count);

        pool.RunAll();
        Assert.Equal(42, await result);
        Assert.Equal(7, await started);
        Assert.Equal(1, asInterface.TaskScheduler.MaximumConcurrencyLevel);
    }

    private sealed class NativeIncrement(StrongBox box) : IThreadPoolWorkItem
    {
        public void Execute() => box.Value++;
    }

    private sealed class StrongBox
    {
        public int Value { get; set; }
    }

    private sealed class Increment(StrongBox box) : IWorkItem
    {
        public void Execute() => box.Value++;
    }

    /// <summary>An <see cref="IThreadPool"/> that implements only the original members and runs items on demand.</summary>
    private sealed class RecordingPool : IThreadPool
    {
        private readonly List<Action> _run = [];

        public List<object> Queued { get; } = [];

        public int WorkerCount => 1;

        public void Queue(Action callback) => TryQueue(callback);

        public void Queue(Action<object?> callback, object? state) => TryQueue(callback, state);

        public void Queue(IWorkItem workItem) => TryQueue(workItem);

        public bool TryQueue(Action callback)
        {
            Queued.Add(callback);
            _run.Add(callback);
            return true;
        }

        public bool TryQueue(Action<object?> callback, object? state)
        {
            Queued.Add(callback);
            _run.Add(() => callback(state));
            return true;
        }

        public bool TryQueue(IWorkItem workItem)
        {
            Queued.Add(workItem);
            _run.Add(workItem.Execute);
            return true;
        }

        public void RunAll() => _run.ForEach(run => run());

        public void Dispose()
        {
        }

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}

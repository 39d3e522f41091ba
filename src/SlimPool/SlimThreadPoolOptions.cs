using SlimPool.Queues;

namespace SlimPool;

/// <summary>
/// Settings for a <see cref="SlimThreadPool"/>. Each property is checked when set and again when the pool is
/// created; the pool copies the values, so changing the options afterwards does not affect it.
/// </summary>
public sealed class SlimThreadPoolOptions
{
    /// <summary>The largest <see cref="WorkerCount"/> accepted.</summary>
    public const int MaxWorkerCount = 32767;

    private int _workerCount = Environment.ProcessorCount;
    private WorkQueueKind _queue = WorkQueueKind.WorkStealing;
    private IdleWaitKind _idleWait = IdleWaitKind.SpinThenPark;
    private string _name = "SlimPool";
    private int? _boundedCapacity;
    private ThreadPriority _threadPriority = ThreadPriority.Normal;
    private int? _maxWorkers;
    private TimeSpan _spareWorkerIdleTimeout = TimeSpan.FromSeconds(5);
    private TimeSpan _starvationTimeout = TimeSpan.FromMilliseconds(50);
    private TimeSpan _lowPriorityMaxDelay = TimeSpan.FromMilliseconds(100);
    private TimeSpan _slowItemThreshold = Timeout.InfiniteTimeSpan;

    /// <summary>
    /// The number of worker threads, from 1 to <see cref="MaxWorkerCount"/>. Default:
    /// <see cref="Environment.ProcessorCount"/>, one worker per core; more threads are not faster for CPU-bound
    /// work.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is below 1 or above <see cref="MaxWorkerCount"/>.</exception>
    public int WorkerCount
    {
        get => _workerCount;
        set
        {
            ValidateWorkerCount(value);
            _workerCount = value;
        }
    }

    /// <summary>
    /// Which built-in queue the pool uses. Default: <see cref="WorkQueueKind.WorkStealing"/>, the fastest on the
    /// comparison program (see docs/performance.md). Ignored when <see cref="QueueFactory"/> is set.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined <see cref="WorkQueueKind"/>.</exception>
    public WorkQueueKind Queue
    {
        get => _queue;
        set
        {
            if (!Enum.IsDefined(value))
            {
                throw new ArgumentOutOfRangeException(nameof(Queue), value, $"{nameof(Queue)} must be a defined {nameof(WorkQueueKind)}.");
            }

            _queue = value;
        }
    }

    /// <summary>
    /// Creates the pool's queue; when set, it overrides <see cref="Queue"/>. Called once, by the pool's
    /// constructor, which throws <see cref="InvalidOperationException"/> if it returns <see langword="null"/>.
    /// The queue must follow the <see cref="IWorkQueue"/> contract. Default: <see langword="null"/>.
    /// </summary>
    public Func<IWorkQueue>? QueueFactory { get; set; }

    /// <summary>How idle workers wait for work. Default: <see cref="IdleWaitKind.SpinThenPark"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined <see cref="IdleWaitKind"/>.</exception>
    public IdleWaitKind IdleWait
    {
        get => _idleWait;
        set
        {
            if (!Enum.IsDefined(value))
            {
                throw new ArgumentOutOfRangeException(nameof(IdleWait), value, $"{nameof(IdleWait)} must be a defined {nameof(IdleWaitKind)}.");
            }

            _idleWait = value;
        }
    }

    /// <summary>
    /// Whether each item runs in the <see cref="ExecutionContext"/> captured when it was queued (so
    /// <see cref="AsyncLocal{T}"/> values flow into it). Default: <see langword="false"/>: flowing costs a
    /// capture per queue and a context switch per item. Either way, an item never sees context left behind by
    /// the item before it.
    /// </summary>
    public bool FlowExecutionContext { get; set; }

    /// <summary>
    /// The pool's name: the start of each worker thread's name (<c>"{Name} #{n}"</c>, n from 1) and the
    /// <c>slimpool.pool.name</c> tag on the pool's metrics (see <see cref="SlimThreadPool.MeterName"/>).
    /// Default: <c>"SlimPool"</c>.
    /// </summary>
    /// <exception cref="ArgumentNullException">The value is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException">The value is empty or only white space.</exception>
    public string Name
    {
        get => _name;
        set
        {
            ArgumentNullException.ThrowIfNull(value, nameof(Name));
            if (string.IsNullOrWhiteSpace(value))
            {
                throw new ArgumentException($"{nameof(Name)} must not be empty or white space.", nameof(Name));
            }

            _name = value;
        }
    }

    /// <summary>The scheduling priority of the worker threads. Default: <see cref="ThreadPriority.Normal"/>.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined <see cref="ThreadPriority"/>.</exception>
    public ThreadPriority ThreadPriority
    {
        get => _threadPriority;
        set
        {
            if (!Enum.IsDefined(value))
            {
                throw new ArgumentOutOfRangeException(nameof(ThreadPriority), value, $"{nameof(ThreadPriority)} must be a defined {nameof(System.Threading.ThreadPriority)} value.");
            }

            _threadPriority = value;
        }
    }

    /// <summary>
    /// Whether the workers are background threads, which do not keep the process alive. Default:
    /// <see langword="true"/>. With <see langword="false"/> the process cannot exit until the pool is disposed.
    /// </summary>
    public bool UseBackgroundThreads { get; set; } = true;

    /// <summary>
    /// Whether the workers run every item under the pool's <see cref="SlimThreadPool.SynchronizationContext"/>, so
    /// that an <c>await</c> in code running on the pool resumes on the pool. Default: <see langword="true"/>. With
    /// <see langword="false"/>, <see cref="SynchronizationContext.Current"/> is <see langword="null"/> at the start of
    /// every item, as on the built-in pool's threads: an <c>await</c> then resumes through
    /// <see cref="TaskScheduler.Current"/>, which is what a runtime with its own <see cref="TaskScheduler"/> needs
    /// (Akka.NET's actors, for one: under a context, an <c>await</c> in an actor would resume outside the actor).
    /// </summary>
    public bool UseSynchronizationContext { get; set; } = true;

    /// <summary>
    /// Called on each worker thread (permanent or spare) when it starts, before it takes any work, with the
    /// worker's index (0 to <see cref="WorkerCount"/> − 1 for permanent workers, higher for spare workers): the
    /// place to set affinity, culture or a profiler's thread name. What it sets in the thread's
    /// <see cref="ExecutionContext"/> (a culture, an <see cref="AsyncLocal{T}"/>) is the baseline each item starts
    /// from. An exception it throws is reported like a work item's and the worker goes on. Default: <see langword="null"/>.
    /// </summary>
    public Action<int>? OnThreadStart { get; set; }

    /// <summary>
    /// Called on each worker thread just before it exits (on shutdown, or when a spare worker retires), with
    /// the worker's index. An exception it throws is reported like a work item's. Default: <see langword="null"/>.
    /// </summary>
    public Action<int>? OnThreadExit { get; set; }

    /// <summary>
    /// The most items that may wait in the queue (queued and not yet started); <see langword="null"/> for no
    /// limit. When the queue is full, <see cref="ThreadPoolBase.TryQueue(Action)"/> returns <see langword="false"/>,
    /// <see cref="ThreadPoolBase.Queue(Action)"/> blocks the calling thread until there is room, or until the item's
    /// cancellation token skips the item (on one of the pool's own workers it runs the item inline instead, which
    /// cannot deadlock; a <see cref="WorkItemPriority.Low"/> item goes past the limit there, behind the items
    /// waiting), and
    /// <see cref="SlimThreadPool.QueueAsync(Action, CancellationToken)"/> waits asynchronously. Continuations and
    /// tasks the pool's <see cref="SlimThreadPool.TaskScheduler"/> and <see cref="SlimThreadPool.SynchronizationContext"/>
    /// queue are never refused or delayed: they may take the queue past the limit, by at most the number of
    /// them in flight. The pool's groups share the limit: an item waiting in a group holds a place until the group's
    /// turn takes it (and a group's queued turn holds one); a group's <c>TryQueue</c> fails and its <c>Queue</c> waits
    /// while the pool is full, except on one of the pool's workers, where it goes past the limit instead. A group's turn
    /// queued again at the end of its quantum, and a Low item's place in line that defers, take a place again whether or
    /// not one is free: the queue may pass the limit by as many of them as are queued again at once.
    /// Default: <see langword="null"/> (unbounded).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is zero or negative.</exception>
    public int? BoundedCapacity
    {
        get => _boundedCapacity;
        set
        {
            if (value is < 1)
            {
                throw new ArgumentOutOfRangeException(nameof(BoundedCapacity), value, $"{nameof(BoundedCapacity)} must be positive, or null for no limit.");
            }

            _boundedCapacity = value;
        }
    }

    /// <summary>
    /// Called, on the worker, with each exception a work item throws; the worker then goes on with the next
    /// item. An exception thrown by the callback itself is written to <see cref="System.Diagnostics.Trace"/>.
    /// Default: <see langword="null"/>: exceptions are written to <see cref="System.Diagnostics.Trace"/>.
    /// Either way each one is counted in <see cref="SlimThreadPool.UnhandledExceptionCount"/>.
    /// </summary>
    public Action<Exception>? UnhandledException { get; set; }

    /// <summary>
    /// The most threads the pool runs at once, counting spare workers started to cover for workers that block
    /// (<see cref="SlimThreadPool.RunBlocking(Action)"/>, <see cref="SlimThreadPool.EnterBlocking"/>) or that the
    /// starvation guard adds. From <see cref="WorkerCount"/> (no spares) to <see cref="MaxWorkerCount"/>.
    /// Default: <see langword="null"/>, meaning <see cref="MaxWorkerCount"/>, the built-in pool's own ceiling: a lower
    /// one can leave every thread blocked in a pattern the built-in pool recovers from (items that wait on items queued
    /// after them). Growth is paced instead: the guard adds at most one worker per <see cref="StarvationTimeout"/>, a
    /// blocking scope one per blocked worker, and spares exit after <see cref="SpareWorkerIdleTimeout"/>. A ceiling
    /// costs nothing until spares use it.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is below 1 or above <see cref="MaxWorkerCount"/>; the pool's
    /// constructor also rejects a value below <see cref="WorkerCount"/>.</exception>
    public int? MaxWorkers
    {
        get => _maxWorkers;
        set
        {
            if (value is < 1 or > MaxWorkerCount)
            {
                throw new ArgumentOutOfRangeException(nameof(MaxWorkers), value, $"{nameof(MaxWorkers)} must be between {nameof(WorkerCount)} and {MaxWorkerCount}.");
            }

            _maxWorkers = value;
        }
    }

    /// <summary>
    /// How long a spare worker waits without work before it exits (it stays while a blocked worker still needs it
    /// covered). Positive; a fraction of a millisecond is rounded up. Default: 5 seconds.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is zero, negative, infinite, or longer than
    /// <see cref="int.MaxValue"/> milliseconds (about 24.9 days).</exception>
    public TimeSpan SpareWorkerIdleTimeout
    {
        get => _spareWorkerIdleTimeout;
        set
        {
            if (value <= TimeSpan.Zero || value == Timeout.InfiniteTimeSpan || value.TotalMilliseconds > int.MaxValue)
            {
                throw new ArgumentOutOfRangeException(nameof(SpareWorkerIdleTimeout), value, $"{nameof(SpareWorkerIdleTimeout)} must be positive and at most {s_longestTimeout} (int.MaxValue milliseconds).");
            }

            _spareWorkerIdleTimeout = value;
        }
    }

    /// <summary>
    /// The starvation guard: when items wait and no worker has finished an item for this long while at least half the
    /// workers are blocked, the pool starts a spare worker (up to <see cref="MaxWorkers"/>), and another after each
    /// further timeout, so items that block without saying so cannot stall the pool for long, however they arrived. It
    /// also starts one when items wait while every worker stayed busy for this long and most are blocked, though some
    /// items still complete. Blocked is read from each worker's own CPU clock (Linux), so other threads of the process
    /// do not hide it, and workers that compute or wait for a CPU (fewer real cores than
    /// <see cref="Environment.ProcessorCount"/>, a container's CPU quota) add at most one spare in all. Elsewhere the
    /// guard falls back to the process's CPU time. Under a cgroup CPU quota below the CPUs the process may run on, the
    /// guard watches at least the quota's enforcement period (100 ms unless the container sets another): a quota spent
    /// holds every thread back for the rest of its period, and a shorter look would read that as blocked workers. The guard thread sleeps while nothing waits. Positive, or <see cref="Timeout.InfiniteTimeSpan"/> to turn the guard off; a value
    /// with a fraction of a millisecond is rounded up to whole milliseconds. Default: 50 milliseconds (the built-in
    /// pool's gate thread looks every 500 ms).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is zero, negative and not <see cref="Timeout.InfiniteTimeSpan"/>,
    /// or longer than <see cref="int.MaxValue"/> milliseconds (about 24.9 days).</exception>
    public TimeSpan StarvationTimeout
    {
        get => _starvationTimeout;
        set
        {
            if ((value <= TimeSpan.Zero && value != Timeout.InfiniteTimeSpan) || value.TotalMilliseconds > int.MaxValue)
            {
                throw new ArgumentOutOfRangeException(nameof(StarvationTimeout), value, $"{nameof(StarvationTimeout)} must be positive and at most {s_longestTimeout} (int.MaxValue milliseconds), or Timeout.InfiniteTimeSpan to turn the guard off.");
            }

            _starvationTimeout = value;
        }
    }

    /// <summary>
    /// How long a <see cref="WorkItemPriority.Low"/> item waits at most for the pool's other items before it runs anyway
    /// (aging): it runs as soon as no other item waits, and after this delay it waits only for its turn in the queue.
    /// Positive. Default: 100 milliseconds.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is zero, negative, infinite, or longer than
    /// <see cref="int.MaxValue"/> milliseconds (about 24.9 days).</exception>
    public TimeSpan LowPriorityMaxDelay
    {
        get => _lowPriorityMaxDelay;
        set
        {
            if (value <= TimeSpan.Zero)
            {
                throw new ArgumentOutOfRangeException(nameof(LowPriorityMaxDelay), value, $"{nameof(LowPriorityMaxDelay)} must be positive.");
            }

            _lowPriorityMaxDelay = value;
        }
    }

    /// <summary>
    /// The slow-item detector: an item still running this long after it started is reported once, while it runs,
    /// through the <c>SlowWorkItem</c> trace event (with the pool, the group, the worker and what names the item: the
    /// delegate's method, or the work item's type) and counted in <see cref="SlimThreadPool.SlowWorkItemCount"/> and
    /// <c>slimpool.work_item.slow</c>. A watch thread looks at the workers every eighth of the threshold (at most
    /// every millisecond), and again when an item it saw reaches the threshold, so an item is reported once it has run
    /// 1.125 times the threshold plus the watch thread's wake-up delays, a millisecond or two (a shorter one past the
    /// threshold may be); an item that blocks (a deadlock, a lost reply) is reported though it never returns. Workers
    /// pay two stores per item while it is on, nothing while it is off. The watch sleeps while every worker is idle. At
    /// least one millisecond, or <see cref="Timeout.InfiniteTimeSpan"/> to turn the detector off. Default:
    /// <see cref="Timeout.InfiniteTimeSpan"/> (off).
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is under one millisecond and not
    /// <see cref="Timeout.InfiniteTimeSpan"/>, or longer than <see cref="int.MaxValue"/> milliseconds (about 24.9 days).</exception>
    public TimeSpan SlowItemThreshold
    {
        get => _slowItemThreshold;
        set
        {
            if ((value < TimeSpan.FromMilliseconds(1) && value != Timeout.InfiniteTimeSpan) || value.TotalMilliseconds > int.MaxValue)
            {
                throw new ArgumentOutOfRangeException(nameof(SlowItemThreshold), value, $"{nameof(SlowItemThreshold)} must be at least 1 millisecond and at most {s_longestTimeout} (int.MaxValue milliseconds), or Timeout.InfiniteTimeSpan to turn the detector off.");
            }

            _slowItemThreshold = value;
        }
    }

    // The longest finite timeout the pool can wait (its waits take whole milliseconds in an int): 24.20:31:23.647.
    private static readonly TimeSpan s_longestTimeout = TimeSpan.FromMilliseconds(int.MaxValue);

    /// <summary>The thread ceiling in effect: <see cref="MaxWorkers"/>, or its default.</summary>
    internal int EffectiveMaxWorkers => _maxWorkers ?? MaxWorkerCount;

    /// <summary>A validated timeout in whole milliseconds, rounded up: 0.1 ms waits 1 ms, never 0 (a spin).</summary>
    internal static int ToWholeMilliseconds(TimeSpan timeout) => (int)Math.Ceiling(timeout.TotalMilliseconds);

    /// <summary>Checks every setting, including those that depend on each other; the pool calls it before using the options.</summary>
    internal void Validate()
    {
        ValidateWorkerCount(_workerCount);
        if (_maxWorkers is int max && max < _workerCount)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxWorkers), max, $"{nameof(MaxWorkers)} ({max}) must be at least {nameof(WorkerCount)} ({_workerCount}).");
        }
    }

    private static void ValidateWorkerCount(int value)
    {
        if (value is < 1 or > MaxWorkerCount)
        {
            throw new ArgumentOutOfRangeException(nameof(WorkerCount), value, $"{nameof(WorkerCount)} must be between 1 and {MaxWorkerCount}.");
        }
    }
}

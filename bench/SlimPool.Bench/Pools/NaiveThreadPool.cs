namespace SlimPool.Bench.Pools;

/// <summary>
/// Our own minimal baseline for seed 003: N threads, one <see cref="Queue{T}"/> under one lock,
/// <see cref="Monitor.Wait(object)"/>/<see cref="Monitor.Pulse(object)"/> for idle threads. Correct, and as
/// simple as a thread pool gets; it shows what more threads cost when they all share one lock.
/// </summary>
internal sealed class NaiveThreadPool : IThreadPool
{
    private readonly object _lock = new();
    private readonly Queue<(Action<object?> Callback, object? State)> _items = new();
    private readonly Thread[] _threads;
    private int _waiting;
    private bool _stopping;

    public NaiveThreadPool(int threads)
    {
        _threads = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            _threads[i] = new Thread(Loop) { IsBackground = true, Name = $"Naive #{i + 1}" };
            _threads[i].Start();
        }
    }

    public int WorkerCount => _threads.Length;

    public void Queue(Action callback) => Queue(static c => ((Action)c!)(), callback);

    public void Queue(Action<object?> callback, object? state)
    {
        if (!TryQueue(callback, state))
        {
            throw new ObjectDisposedException(nameof(NaiveThreadPool));
        }
    }

    public void Queue(IWorkItem workItem) => Queue(static w => ((IWorkItem)w!).Execute(), workItem);

    public bool TryQueue(Action callback) => TryQueue(static c => ((Action)c!)(), callback);

    public bool TryQueue(IWorkItem workItem) => TryQueue(static w => ((IWorkItem)w!).Execute(), workItem);

    public bool TryQueue(Action<object?> callback, object? state)
    {
        ArgumentNullException.ThrowIfNull(callback);
        lock (_lock)
        {
            if (_stopping)
            {
                return false;
            }

            _items.Enqueue((callback, state));
            if (_waiting > 0)
            {
                Monitor.Pulse(_lock);
            }
        }

        return true;
    }

    public void Dispose()
    {
        lock (_lock)
        {
            _stopping = true;
            Monitor.PulseAll(_lock);
        }

        foreach (Thread thread in _threads)
        {
            thread.Join();
        }
    }

    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }

    private void Loop()
    {
        while (true)
        {
            (Action<object?> Callback, object? State) item;
            lock (_lock)
            {
                while (_items.Count == 0)
                {
                    if (_stopping)
                    {
                        return;
                    }

                    _waiting++;
                    Monitor.Wait(_lock);
                    _waiting--;
                }

                item = _items.Dequeue();
            }

            try
            {
                item.Callback(item.State);
            }
            catch (Exception exception)
            {
                Console.Error.WriteLine($"NaiveThreadPool: an item threw: {exception.Message}");
            }
        }
    }
}

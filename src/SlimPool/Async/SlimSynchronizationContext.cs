using SlimPool.Queues;

namespace SlimPool.Async;

/// <summary>
/// The SynchronizationContext every <see cref="SlimThreadPool"/> worker runs under: <see cref="Post"/> queues the
/// callback to the pool (no wrapper is allocated: the pool's queue entries dispatch
/// <see cref="SendOrPostCallback"/> directly), so <c>await</c> resumes on the pool.
/// </summary>
/// <remarks>
/// <see cref="Send"/> on one of the pool's workers runs the callback inline: a worker that waited for its own pool
/// could deadlock a full pool, and inline is what a caller of Send on the pool expects. Off the pool it posts and
/// blocks until the callback has run, rethrowing its exception; if a shutdown abandons the callback before it runs,
/// Send throws <see cref="ObjectDisposedException"/> instead of waiting for ever. A Post after the pool was disposed
/// runs on the built-in thread pool instead, so a late continuation is never dropped.
/// </remarks>
internal sealed class SlimSynchronizationContext(SlimThreadPool pool) : SynchronizationContext
{
    private static readonly WaitCallback s_runElsewhere = static state =>
    {
        var (callback, argument) = ((SendOrPostCallback, object?))state!;
        callback(argument);
    };

    public override void Post(SendOrPostCallback d, object? state)
    {
        ArgumentNullException.ThrowIfNull(d);
        if (!pool.TryEnqueue(d, state))
        {
            ThreadPool.UnsafeQueueUserWorkItem(s_runElsewhere, (d, state));
        }
    }

    public override void Send(SendOrPostCallback d, object? state)
    {
        ArgumentNullException.ThrowIfNull(d);
        if (pool.IsOwnWorker)
        {
            d(state);
            return;
        }

        var call = new SendCall(d, state);
        if (!pool.TryEnqueue(call, null))
        {
            throw new ObjectDisposedException(nameof(SlimThreadPool), "The pool has been disposed and no longer accepts work.");
        }

        call.Wait();
    }

    public override SynchronizationContext CreateCopy() => this;

    // Run or Abandon is called exactly once (the queue hands each item to one taker), then Wait returns.
    private sealed class SendCall(SendOrPostCallback callback, object? state) : IWorkItem, IAbandonable
    {
        private readonly ManualResetEventSlim _done = new(false);
        private Exception? _error;

        public void Abandon()
        {
            _error = new ObjectDisposedException(nameof(SlimThreadPool), "The pool shut down and abandoned this Send before its callback ran.");
            _done.Set();
        }

        public void Execute()
        {
            try
            {
                callback(state);
            }
            catch (Exception exception)
            {
                _error = exception;
            }
            finally
            {
                _done.Set();
            }
        }

        public void Wait()
        {
            _done.Wait();
            _done.Dispose();
            if (_error is not null)
            {
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(_error);
            }
        }
    }
}

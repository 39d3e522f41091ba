using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Async;

/// <summary>
/// The SynchronizationContext a <see cref="SlimThreadPool"/>'s workers run under, and that of each group's items:
/// <see cref="Post"/> queues the callback to the pool or the group (no wrapper is allocated: queue entries dispatch
/// <see cref="SendOrPostCallback"/> directly), so <c>await</c> resumes there.
/// </summary>
/// <remarks>
/// <see cref="Send"/> where the target's items run (one of the pool's workers; an item of the group, or an item run
/// inside one it left suspended; for the pool, the thread running the pool's shutdown's own items) runs the callback
/// inline: a worker that waited for its own pool could deadlock a full pool, a group's suspended item or the shutdown's
/// thread would wait for itself, and inline is what a caller of Send there expects. A group's Send from an item the
/// shutdown runs itself throws <see cref="ObjectDisposedException"/>: the group's turn may be queued behind the calling
/// item, or running on another such thread, so it can neither wait nor run inline. Elsewhere it posts and blocks until
/// the callback has run, rethrowing its exception; on another of the pool's workers the wait is a blocking scope, so a
/// spare worker covers for it (during a drain too). If a shutdown abandons the callback before it runs (an abandon of
/// the pool that began before it started), Send throws <see cref="ObjectDisposedException"/> instead of waiting for
/// ever. A Post after the target stopped accepting runs on the built-in thread pool instead, so a late continuation is
/// never dropped; a serial group's runs there once the group's running item has finished, one at a time
/// (<see cref="ISchedulingTarget.RunRefused"/>).
/// </remarks>
internal sealed class SlimSynchronizationContext(ISchedulingTarget target) : SynchronizationContext
{
    // A (callback, argument) pair's call: for a late Post on the built-in pool, and for a Send back inside a group.
    private static readonly Action<object?> s_invoke = static state =>
    {
        var (callback, argument) = ((SendOrPostCallback, object?))state!;
        callback(argument);
    };

    public override void Post(SendOrPostCallback d, object? state)
    {
        ArgumentNullException.ThrowIfNull(d);
        if (!target.TryEnqueue(d, state))
        {
            target.RunRefused(s_invoke, (d, state));
        }
    }

    public override void Send(SendOrPostCallback d, object? state)
    {
        ArgumentNullException.ThrowIfNull(d);
        if (target.IsRunningItemsOnCurrentThread)
        {
            d(state);
            return;
        }

        if (target.MaySendInline)
        {
            // A group whose item is suspended under this call: back inside the group while the callback runs, so what it
            // posts (an await's continuation) comes back to the group, as from that item itself.
            target.RunInline(s_invoke, (d, state));
            return;
        }

        // A group's Send from an item the pool's shutdown runs itself (the finishing thread, a late producer, a worker's
        // Dispose loop): the group's turn may be queued behind this very item, with no spare to come and perhaps nobody
        // else to run it, or run on another such thread at this moment, so neither waiting nor running inline is safe;
        // the pool has shut down.
        if (target.Pool.IsRunningShutdownItemsOnCurrentThread)
        {
            throw new ObjectDisposedException(nameof(SlimThreadPool), "The pool has shut down: a group's Send from an item its shutdown runs cannot wait for the group.");
        }

        var call = new SendCall(d, state);
        if (!target.TryEnqueue(call, null))
        {
            throw new ObjectDisposedException(nameof(SlimThreadPool), "The pool or group has been shut down and no longer accepts work.");
        }

        using (target.Pool.EnterBlocking())
        {
            call.Wait(target.Pool.AbandonToken);
        }
    }

    public override SynchronizationContext CreateCopy() => this;

    // The queue hands the call to one taker, which runs it or abandons it (a shutdown's hand-back); the waiter may abandon
    // it too, once the pool's abandon began. _state decides which of them acts: the first to move it from Queued.
    private sealed class SendCall(SendOrPostCallback callback, object? state) : IWorkItem, IAbandonable
    {
        private const int Queued = 0, Running = 1, Abandoned = 2;
        private readonly ManualResetEventSlim _done = new(false);
        private Exception? _error;
        private int _state;

        public void Abandon()
        {
            if (Interlocked.CompareExchange(ref _state, Abandoned, Queued) != Queued)
            {
                return;
            }

            _error = new ObjectDisposedException(nameof(SlimThreadPool), "The pool shut down and abandoned this Send before its callback ran.");
            using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending();
            _done.Set();
        }

        public void Execute()
        {
            if (Interlocked.CompareExchange(ref _state, Running, Queued) != Queued)
            {
                return; // its waiter gave up on it and has thrown; counted as run, as an item skipped for its token is
            }

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
                // The callback may have left an interrupt pending; the caller waits on the event (ThreadInterrupts.HoldOffPending).
                using ThreadInterrupts.PendingScope heldOff = ThreadInterrupts.HoldOffPending();
                _done.Set();
            }
        }

        // Until the callback has run or was abandoned. Once the pool's abandon began, a callback not yet started will not
        // run before the workers exit, and this caller may be one of them (an item that sent to a group): it abandons
        // the call itself then, unless the callback already started, which it waits for.
        public void Wait(CancellationToken abandoning)
        {
            try
            {
                _done.Wait(abandoning);
            }
            catch (OperationCanceledException) when (abandoning.IsCancellationRequested)
            {
                Abandon();
                _done.Wait();
            }

            _done.Dispose();
            if (_error is not null)
            {
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(_error);
            }
        }
    }
}

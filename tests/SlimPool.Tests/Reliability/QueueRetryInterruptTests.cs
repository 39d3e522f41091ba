using SlimPool.Queues;
using SlimPool.Workers;

namespace SlimPool.Tests.Reliability;

/// <summary>
/// The retry of a user queue's call that met an interrupt (<see cref="ThreadInterrupts.Enqueue"/>,
/// <see cref="ThreadInterrupts.TryDequeue"/>): the interrupt it took goes back to the thread however the retry ends,
/// the queue's own exception included (it was lost there, found by a review).
/// </summary>
public sealed class QueueRetryInterruptTests
{
    [Fact]
    public void Enqueue_RetryAfterAnInterruptThrowsTheQueuesOwnException_TheExceptionPropagatesAndTheInterruptIsGivenBack()
    {
        (Exception? thrown, bool pending) = OnOwnThread(() => ThreadInterrupts.Enqueue(new FailingQueue(), new QueuedWorkItem(static () => { }, null, null)));

        Assert.IsType<InvalidOperationException>(thrown);
        Assert.True(pending, "the interrupt the first call took was lost");
    }

    [Fact]
    public void TryDequeue_RetryAfterAnInterruptThrowsTheQueuesOwnException_TheExceptionPropagatesAndTheInterruptIsGivenBack()
    {
        (Exception? thrown, bool pending) = OnOwnThread(() => ThreadInterrupts.TryDequeue(new FailingQueue(), out _));

        Assert.IsType<InvalidOperationException>(thrown);
        Assert.True(pending, "the interrupt the first call took was lost");
    }

    // Runs `call` on a thread of its own (which ends with it): what it threw, and whether an interrupt is pending after.
    private static (Exception? Thrown, bool Pending) OnOwnThread(Action call)
    {
        Exception? thrown = null;
        bool pending = false;
        var thread = new Thread(() =>
        {
            try
            {
                call();
            }
            catch (Exception exception)
            {
                thrown = exception;
            }

            pending = ThreadInterrupts.DropPending();
        }) { IsBackground = true };
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(60)), "the call did not return");
        return (thrown, pending);
    }

    // A user's queue whose first call meets an interrupt (a contended lock's wait) and whose second fails on its own.
    private sealed class FailingQueue : IWorkQueue
    {
        private int _calls;

        public bool IsEmpty => true;

        public int Count => 0;

        public void Enqueue(in QueuedWorkItem item) => Fail();

        public bool TryDequeue(out QueuedWorkItem item)
        {
            item = default;
            Fail();
            return false;
        }

        private void Fail()
        {
            if (++_calls == 1)
            {
                throw new ThreadInterruptedException();
            }

            throw new InvalidOperationException("the queue's own failure");
        }
    }
}

using System.Reflection;

namespace SlimPool.Tests.Infrastructure;

/// <summary>The bounded waits every test relies on: they must not turn a set event into a timeout.</summary>
public sealed class BoundedTests
{
    // A Set on a thread with an interrupt pending throws at the event's contended monitor after setting the state and
    // before pulsing the waiter (a test's item that interrupts itself and then signals did this in a loaded CI run, and the
    // test waited out its 60 s for an event that was set). The monitor is held here for the instant of the Set.
    [Fact]
    public void Wait_SetThrowsAtAnInterruptBeforePulsingTheWaiter_ReturnsOnceSet()
    {
        using var signal = new ManualResetEventSlim(initialState: false, spinCount: 1);
        Exception? setError = null;
        var setter = new Thread(() =>
        {
            Thread.CurrentThread.Interrupt();
            try
            {
                signal.Set();
            }
            catch (ThreadInterruptedException exception)
            {
                setError = exception;
            }
        }) { IsBackground = true };

        Exception? waitError = null;
        var waiter = new Thread(() =>
        {
            try
            {
                Bounded.Wait(signal, "the signal");
            }
            catch (Exception exception)
            {
                waitError = exception;
            }
        }) { IsBackground = true };
        waiter.Start();
        Bounded.Until(() => (waiter.ThreadState & ThreadState.WaitSleepJoin) != 0, "the waiter to park");
        Thread.Sleep(50); // past the event's spin, in its monitor wait
        object monitor = typeof(ManualResetEventSlim).GetField("m_lock", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(signal)!; // made by the first wait

        Monitor.Enter(monitor);
        try
        {
            setter.Start();
            Assert.True(setter.Join(Bounded.Timeout), "the setter did not return");
        }
        finally
        {
            Monitor.Exit(monitor);
        }

        // The Set throws (the pulse lost) when it finds a waiter counted, as it does unless the waiter is between two of
        // its slices; either way the state is set and the waiter must see it.
        Assert.True(signal.IsSet);
        Assert.True(setError is null or ThreadInterruptedException);
        Assert.True(waiter.Join(Bounded.Timeout + TimeSpan.FromSeconds(10)), "the waiter did not return");
        Assert.Null(waitError);
    }
}

using System.Diagnostics;

namespace SlimPool.Tests.Infrastructure;

/// <summary>Every wait in the tests goes through here: a hung pool fails the test instead of hanging CI.</summary>
internal static class Bounded
{
    /// <summary>Generous: the machine is shared, has two cores, and tests run in parallel.</summary>
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);

    /// <summary>
    /// How long one slice of a wait on a slim event lasts. An event's <c>Set</c> sets its state and then pulses its waiters
    /// under the event's own monitor; on a thread with an interrupt pending (an item that interrupts itself, as many
    /// tests' items do) that monitor, when contended, throws before the pulse, and a waiter already parked sleeps out its
    /// whole timeout with the event set. Waiting in slices, each re-reading the state, bounds that lost pulse to one slice.
    /// </summary>
    private static readonly TimeSpan s_slice = TimeSpan.FromMilliseconds(100);

    public static void Wait(CountdownEvent countdown, string what)
    {
        if (!InSlices(countdown.Wait))
        {
            Assert.Fail($"Timed out after {Timeout.TotalSeconds} s waiting for {what}; {countdown.CurrentCount} of {countdown.InitialCount} still outstanding.");
        }
    }

    public static void Wait(WaitHandle handle, string what) =>
        Assert.True(handle.WaitOne(Timeout), $"Timed out after {Timeout.TotalSeconds} s waiting for {what}.");

    public static void Wait(ManualResetEventSlim handle, string what) =>
        Assert.True(InSlices(handle.Wait), $"Timed out after {Timeout.TotalSeconds} s waiting for {what}.");

    // True once a slice's wait returns true; false once the slices have added up to Timeout (see s_slice).
    private static bool InSlices(Func<TimeSpan, bool> wait)
    {
        var stopwatch = Stopwatch.StartNew();
        while (!wait(s_slice))
        {
            if (stopwatch.Elapsed > Timeout)
            {
                return false;
            }
        }

        return true;
    }

    public static void Wait(Task task, string what)
    {
        Assert.True(task.Wait(Timeout), $"Timed out after {Timeout.TotalSeconds} s waiting for {what}.");
        task.GetAwaiter().GetResult(); // rethrow the task's own exception, unwrapped
    }

    public static T Result<T>(Task<T> task, string what)
    {
        Assert.True(task.Wait(Timeout), $"Timed out after {Timeout.TotalSeconds} s waiting for {what}.");
        return task.Result;
    }

    public static void Until(Func<bool> condition, string what)
    {
        var stopwatch = Stopwatch.StartNew();
        while (!condition())
        {
            if (stopwatch.Elapsed > Timeout)
            {
                Assert.Fail($"Timed out after {Timeout.TotalSeconds} s waiting until {what}.");
            }

            Thread.Sleep(1);
        }
    }

    /// <summary>Runs <paramref name="action"/> on its own thread; fails if it does not return in time (a deadlock).</summary>
    public static void Run(Action action, string what)
    {
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                action();
            }
            catch (Exception exception)
            {
                failure = exception;
            }
        })
        {
            IsBackground = true,
            Name = $"Bounded: {what}",
        };
        thread.Start();
        Assert.True(thread.Join(Timeout), $"Timed out after {Timeout.TotalSeconds} s: {what} did not return (deadlock?).");
        if (failure is not null)
        {
            throw new InvalidOperationException($"{what} threw.", failure);
        }
    }
}

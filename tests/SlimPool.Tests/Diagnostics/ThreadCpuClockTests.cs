using System.Diagnostics;
using System.Text;
using SlimPool.Diagnostics;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Diagnostics;

/// <summary>Per-thread CPU clocks: schedstat and stat parsed from text, and read from live threads on Linux.</summary>
public sealed class ThreadCpuClockTests
{
    [Theory]
    [InlineData("95852 489214 2\n", 95852, 489214, 2)]
    [InlineData("267908880 967274117 165", 267908880, 967274117, 165)]
    [InlineData("0 0 0\n", 0, 0, 0)]
    [InlineData("9223372036854775807 1 1\n", long.MaxValue, 1, 1)]
    public void TryParseSchedstat_KernelLine_GivesOnCpuWaitAndSlices(string text, long onCpu, long wait, long slices)
    {
        Assert.True(ThreadCpuClock.TryParseSchedstat(Encoding.ASCII.GetBytes(text), out ThreadCpuTimes times));
        Assert.Equal(new ThreadCpuTimes(onCpu, wait, slices), times);
        Assert.Equal(onCpu + wait, times.RunnableNanoseconds);
    }

    [Theory]
    [InlineData("")]
    [InlineData("12 34\n")]
    [InlineData("12x 34 5\n")]
    [InlineData("-1 2 3\n")]
    [InlineData("a b c")]
    public void TryParseSchedstat_NotThreeNumbers_Fails(string text) =>
        Assert.False(ThreadCpuClock.TryParseSchedstat(Encoding.ASCII.GetBytes(text), out _));

    [Theory]
    [InlineData("4242 (SlimPool #1) S 1 4242 4242 0 -1", 'S')]
    [InlineData("4242 (a) (b) R) R 1 2", 'R')]   // a name with parentheses: the last ')' closes it
    [InlineData("7 (x) D 1", 'D')]
    public void TryParseStatState_StatLine_GivesTheStateLetter(string text, char expected)
    {
        Assert.True(ThreadCpuClock.TryParseStatState(Encoding.ASCII.GetBytes(text), out byte state));
        Assert.Equal((byte)expected, state);
    }

    [Theory]
    [InlineData("")]
    [InlineData("4242 (cut")]
    [InlineData("4242 (x)")]
    [InlineData("4242 (x) 1")]
    public void TryParseStatState_Malformed_Fails(string text) =>
        Assert.False(ThreadCpuClock.TryParseStatState(Encoding.ASCII.GetBytes(text), out _));

    [Fact]
    public void TryRead_OnLinux_SpinningThreadGainsCpuAndASleepingOneIsNotRunnable()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.False(ThreadCpuClock.IsSupported);
            return;
        }

        Assert.True(ThreadCpuClock.IsSupported);
        int threadId = ThreadCpuClock.CurrentThreadId();
        Assert.True(ThreadCpuClock.TryRead(threadId, out ThreadCpuTimes before));
        // Spin until the thread's own clock shows 10 ms on a CPU (bounded): on a shared virtual machine the host may take
        // the CPU away for most of any fixed wall-clock span, and that time counts neither as on-CPU nor as waiting.
        long start = Stopwatch.GetTimestamp();
        ThreadCpuTimes after;
        do
        {
            Thread.SpinWait(200);
            Assert.True(ThreadCpuClock.TryRead(threadId, out after));
        }
        while (after.OnCpuNanoseconds - before.OnCpuNanoseconds < 10_000_000 && Stopwatch.GetElapsedTime(start) < Bounded.Timeout);

        Assert.True(after.OnCpuNanoseconds - before.OnCpuNanoseconds >= 10_000_000, $"{before} -> {after}");
        Assert.True(after.RunnableNanoseconds >= after.OnCpuNanoseconds, $"{after}");
        Assert.True(ThreadCpuClock.TryReadIsRunnable(threadId, out bool selfRunnable) && selfRunnable); // reading itself: on a CPU

        using var asleep = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        int sleeperId = 0;
        var sleeper = new Thread(() =>
        {
            sleeperId = ThreadCpuClock.CurrentThreadId();
            asleep.Set();
            release.Wait(Bounded.Timeout);
        }) { IsBackground = true };
        sleeper.Start();
        Bounded.Wait(asleep, "the sleeper to start");
        Bounded.Until(() => ThreadCpuClock.TryReadIsRunnable(sleeperId, out bool runnable) && !runnable, "the sleeper blocks");
        release.Set();
        Assert.True(sleeper.Join(Bounded.Timeout));
        Bounded.Until(() => !ThreadCpuClock.TryRead(sleeperId, out _), "the exited thread's clock is gone");
    }
}

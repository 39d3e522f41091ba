namespace SlimPool.Diagnostics;

/// <summary>
/// One reading of a thread's scheduler clock (Linux <c>/proc/self/task/&lt;tid&gt;/schedstat</c>): time on a CPU, time
/// runnable but waiting in a run queue (a CPU quota's throttling included, on the kernels we know), and timeslices.
/// </summary>
/// <param name="OnCpuNanoseconds">Time the thread ran on a CPU.</param>
/// <param name="RunQueueWaitNanoseconds">Time the thread was runnable and waited for a CPU.</param>
/// <param name="Timeslices">Times the thread was given a CPU.</param>
internal readonly record struct ThreadCpuTimes(long OnCpuNanoseconds, long RunQueueWaitNanoseconds, long Timeslices)
{
    /// <summary>The time the thread was not blocked: on a CPU or waiting for one.</summary>
    public long RunnableNanoseconds => OnCpuNanoseconds + RunQueueWaitNanoseconds;
}

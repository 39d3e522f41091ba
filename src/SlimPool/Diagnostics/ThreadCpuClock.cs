using System.Buffers.Text;
using Microsoft.Win32.SafeHandles;

namespace SlimPool.Diagnostics;

/// <summary>
/// Per-thread scheduler clocks, for the starvation guard to tell a worker that is blocked from one that computes or
/// waits for a CPU. Linux only: <c>/proc/self/task/&lt;tid&gt;/schedstat</c> ("on-CPU ns, run-queue wait ns,
/// timeslices"). Elsewhere, or where the kernel has no schedstat (no <c>CONFIG_SCHED_INFO</c>), it reports itself
/// unsupported and the guard falls back to the process's CPU time.
/// </summary>
/// <remarks>
/// A thread learns its own kernel id once, at its start (<see cref="CurrentThreadId"/>: the link
/// <c>/proc/thread-self</c> → <c>&lt;pid&gt;/task/&lt;tid&gt;</c>, no P/Invoke and no per-architecture syscall number);
/// any thread may then read another's clock by that id. A read opens, reads and closes one small file into a stack
/// buffer: a few microseconds, and one <see cref="SafeFileHandle"/> of garbage.
/// </remarks>
internal static class ThreadCpuClock
{
    private const int MaxSchedstatBytes = 96; // three decimal longs, two spaces, a newline: at most 62

    /// <summary>Whether per-thread clocks can be read here (checked once, on the calling thread).</summary>
    public static bool IsSupported { get; } = TryRead(CurrentThreadId(), out _);

    /// <summary>The calling thread's kernel id, or 0 where it cannot be known.</summary>
    public static int CurrentThreadId()
    {
        if (!OperatingSystem.IsLinux())
        {
            return 0;
        }

        try
        {
            // "<pid>/task/<tid>"
            string? target = new FileInfo("/proc/thread-self").LinkTarget;
            return target is not null && int.TryParse(Path.GetFileName(target), out int tid) ? tid : 0;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            return 0;
        }
    }

    /// <summary>Reads thread <paramref name="threadId"/>'s clock; false if it cannot (the thread has exited, no schedstat).</summary>
    public static bool TryRead(int threadId, out ThreadCpuTimes times)
    {
        times = default;
        if (threadId <= 0)
        {
            return false;
        }

        Span<byte> buffer = stackalloc byte[MaxSchedstatBytes];
        int length;
        try
        {
            using SafeFileHandle file = File.OpenHandle($"/proc/self/task/{threadId}/schedstat");
            length = RandomAccess.Read(file, buffer, fileOffset: 0);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            return false;
        }

        return TryParseSchedstat(buffer[..length], out times);
    }

    /// <summary>
    /// Reads whether thread <paramref name="threadId"/> is runnable now (state R in <c>/proc/self/task/&lt;tid&gt;/stat</c>:
    /// on a CPU, in a run queue, or held back by a cgroup's quota) rather than sleeping or in uninterruptible wait.
    /// Needed beside the times because the kernel adds a thread's run-queue wait to schedstat only when the thread gets
    /// a CPU: a thread throttled through a whole period shows neither time on a CPU nor wait until afterwards.
    /// False if it cannot read it.
    /// </summary>
    public static bool TryReadIsRunnable(int threadId, out bool runnable)
    {
        runnable = false;
        if (threadId <= 0)
        {
            return false;
        }

        // "<tid> (<comm, at most 15 bytes>) <state> ...": the state lies within the first 64 bytes.
        Span<byte> buffer = stackalloc byte[64];
        int length;
        try
        {
            using SafeFileHandle file = File.OpenHandle($"/proc/self/task/{threadId}/stat");
            length = RandomAccess.Read(file, buffer, fileOffset: 0);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            return false;
        }

        if (!TryParseStatState(buffer[..length], out byte state))
        {
            return false;
        }

        runnable = state == (byte)'R';
        return true;
    }

    /// <summary>The state letter of a <c>stat</c> line: the first field after the last ')' that closes the name.</summary>
    public static bool TryParseStatState(ReadOnlySpan<byte> text, out byte state)
    {
        int close = text.LastIndexOf((byte)')');
        if (close < 0 || close + 2 >= text.Length || text[close + 1] != (byte)' ')
        {
            state = 0;
            return false;
        }

        state = text[close + 2];
        return state is >= (byte)'A' and <= (byte)'Z' or >= (byte)'a' and <= (byte)'z';
    }

    /// <summary>Parses a schedstat line, "&lt;on-CPU ns&gt; &lt;run-queue wait ns&gt; &lt;timeslices&gt;\n".</summary>
    public static bool TryParseSchedstat(ReadOnlySpan<byte> text, out ThreadCpuTimes times)
    {
        times = default;
        Span<long> fields = stackalloc long[3];
        for (int i = 0; i < fields.Length; i++)
        {
            text = text.TrimStart(" \t"u8);
            if (!Utf8Parser.TryParse(text, out long value, out int consumed) || value < 0)
            {
                return false;
            }

            fields[i] = value;
            text = text[consumed..];
            if (!text.IsEmpty && text[0] is not ((byte)' ' or (byte)'\t' or (byte)'\n'))
            {
                return false; // "12x": not a number
            }
        }

        times = new ThreadCpuTimes(fields[0], fields[1], fields[2]);
        return true;
    }
}

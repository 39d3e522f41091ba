using System.Globalization;
using SlimPool.Diagnostics;

namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// A cgroup v1 pids group that a pool's threads are born into (Linux, as root): the creating thread moves itself in
/// (new threads inherit their creator's group), makes the pool, and moves back; or a child process starts in it
/// (<see cref="Prefix"/>). <see cref="Close"/> then caps the group
/// at the threads it holds, so every spare the pool tries to start fails, as under a container's pids limit, while the
/// test process and its other threads go on; <see cref="Lift"/> lifts the cap. Removed on dispose.
/// </summary>
internal sealed class PidsCage : IDisposable
{
    private const string Mount = "/sys/fs/cgroup/pids";
    private readonly string _directory;

    private PidsCage(string directory) => _directory = directory;

    /// <summary>Thread starts the cap refused so far (<c>pids.events</c>).</summary>
    public int Failures =>
        int.TryParse(File.ReadAllText(Path.Combine(_directory, "pids.events")).Split(' ', '\n')[1], NumberStyles.Integer, CultureInfo.InvariantCulture, out int count) ? count : -1;

    /// <summary>Makes the group, or returns null and says why not.</summary>
    public static PidsCage? TryCreate(out string reason)
    {
        reason = "";
        if (!OperatingSystem.IsLinux() || !File.Exists(Path.Combine(Mount, "tasks")))
        {
            reason = "no cgroup v1 pids hierarchy";
            return null;
        }

        string directory = Path.Combine(Mount, $"slimpool-test-{Environment.ProcessId}-{Guid.NewGuid():N}");
        try
        {
            Directory.CreateDirectory(directory);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            reason = exception.Message;
            return null;
        }

        return new PidsCage(directory);
    }

    /// <summary>Makes a pool whose threads are in the group, and waits for its first item (the runtime starts a helper thread of its own with the first worker).</summary>
    public SlimThreadPool Create(Action<SlimThreadPoolOptions> configure, [System.Runtime.CompilerServices.CallerMemberName] string name = "")
    {
        SlimThreadPool? pool = null;
        var maker = new Thread(() =>
        {
            string tid = ThreadCpuClock.CurrentThreadId().ToString(CultureInfo.InvariantCulture);
            File.WriteAllText(Path.Combine(_directory, "tasks"), tid);
            try
            {
                pool = TestPools.Create(workers: 1, configure, name);
            }
            finally
            {
                File.WriteAllText(Path.Combine(Mount, "tasks"), tid);
            }
        });
        maker.Start();
        Assert.True(maker.Join(Bounded.Timeout), "making the pool in the pids group");
        using var warm = new ManualResetEventSlim();
        pool!.Queue(warm.Set);
        Bounded.Wait(warm, "the caged pool's first item");
        return pool;
    }

    /// <summary>Caps the group at the threads it holds now: every later thread start in it fails.</summary>
    public void Close()
    {
        // A thread of the runtime's that leaves meanwhile frees a place, so settle first.
        string current = File.ReadAllText(Path.Combine(_directory, "pids.current")).Trim();
        for (int attempt = 0; attempt < 10; attempt++)
        {
            File.WriteAllText(Path.Combine(_directory, "pids.max"), current);
            Thread.Sleep(10);
            string now = File.ReadAllText(Path.Combine(_directory, "pids.current")).Trim();
            if (now == current)
            {
                return;
            }

            current = now;
        }
    }

    /// <summary>Lifts the cap.</summary>
    public void Lift() => File.WriteAllText(Path.Combine(_directory, "pids.max"), "max");

    /// <summary>Caps the group at <paramref name="threads"/> threads.</summary>
    public void Cap(int threads) => File.WriteAllText(Path.Combine(_directory, "pids.max"), threads.ToString(CultureInfo.InvariantCulture));

    /// <summary>A command that moves itself into the group, then runs its arguments (a child process born into it).</summary>
    public IReadOnlyList<string> Prefix => ["sh", "-c", "echo $$ > \"$0\" && exec \"$@\"", Path.Combine(_directory, "cgroup.procs")];

    public void Dispose()
    {
        Lift();
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                Directory.Delete(_directory);
                return;
            }
            catch (IOException) when (attempt < 200)
            {
                Thread.Sleep(20); // the pool's threads leave the group as they exit
            }
        }
    }
}

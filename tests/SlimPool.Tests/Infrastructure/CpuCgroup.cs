using System.Globalization;

namespace SlimPool.Tests.Infrastructure;

/// <summary>
/// A real cgroup with a CPU quota, created for one test and removed after it (Linux, as root or with a delegated
/// hierarchy): cgroup v2 where the unified hierarchy has the cpu controller, else v1's cpu hierarchy. A child process
/// started under <see cref="Prefix"/> joins it before it runs, so it starts inside the quota.
/// </summary>
internal sealed class CpuCgroup : IDisposable
{
    private const int DefaultPeriodMicroseconds = 100_000; // the kernel's default enforcement period

    private CpuCgroup(string directory, string version)
    {
        Directory = directory;
        Version = version;
    }

    /// <summary>The cgroup's directory.</summary>
    public string Directory { get; }

    /// <summary>"v2" or "v1".</summary>
    public string Version { get; }

    /// <summary>A command that moves itself into the cgroup, then runs its arguments (<c>sh -c 'echo $$ > procs; exec "$@"'</c>).</summary>
    public IReadOnlyList<string> Prefix => ["sh", "-c", "echo $$ > \"$0\" && exec \"$@\"", Path.Combine(Directory, "cgroup.procs")];

    /// <summary>
    /// Creates a cgroup limited to <paramref name="cores"/> CPUs, enforced every <paramref name="periodMicroseconds"/>
    /// (100 ms unless given), or returns null and says why not.
    /// </summary>
    public static CpuCgroup? TryCreate(double cores, out string reason, int periodMicroseconds = DefaultPeriodMicroseconds)
    {
        if (!OperatingSystem.IsLinux())
        {
            reason = "cgroups are Linux only";
            return null;
        }

        string name = $"slimpool-test-{Environment.ProcessId}-{Guid.NewGuid():N}";
        long quota = (long)Math.Round(cores * periodMicroseconds);
        string? v2 = null;
        string? v1 = null;
        foreach (string line in File.ReadLines("/proc/self/mountinfo"))
        {
            // "36 25 0:31 / /sys/fs/cgroup/cpu rw,relatime shared:1 - cgroup cgroup rw,cpu"
            string[] sides = line.Split(" - ", 2);
            string[] mount = sides[0].Split(' ');
            string[] source = sides.Length == 2 ? sides[1].Split(' ') : [];
            if (mount.Length < 5 || source.Length < 3)
            {
                continue;
            }

            if (source[0] == "cgroup2")
            {
                v2 ??= mount[4];
            }
            else if (source[0] == "cgroup" && source[2].Split(',').Contains("cpu"))
            {
                v1 ??= mount[4];
            }
        }

        var reasons = new List<string>();
        if (v2 is not null && TryV2(v2, name, quota, periodMicroseconds, out string? directory, reasons))
        {
            reason = "";
            return new CpuCgroup(directory!, "v2");
        }

        if (v1 is not null && TryV1(v1, name, quota, periodMicroseconds, out directory, reasons))
        {
            reason = "";
            return new CpuCgroup(directory!, "v1");
        }

        if (v2 is null && v1 is null)
        {
            reasons.Add("no cgroup v2 mount and no v1 cpu hierarchy in /proc/self/mountinfo");
        }

        reason = string.Join("; ", reasons);
        return null;
    }

    public void Dispose()
    {
        // The child has exited; the kernel may take a moment to let the group go.
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                System.IO.Directory.Delete(Directory);
                return;
            }
            catch (IOException) when (attempt < 50)
            {
                Thread.Sleep(20);
            }
        }
    }

    private static bool TryV2(string mount, string name, long quota, int period, out string? directory, List<string> reasons)
    {
        directory = null;
        try
        {
            if (!File.ReadAllText(Path.Combine(mount, "cgroup.controllers")).Split().Contains("cpu"))
            {
                reasons.Add($"cgroup v2 at {mount} has no cpu controller (it is bound to v1)");
                return false;
            }

            string subtree = Path.Combine(mount, "cgroup.subtree_control");
            if (!File.ReadAllText(subtree).Split().Contains("cpu"))
            {
                File.WriteAllText(subtree, "+cpu");
            }

            string path = Path.Combine(mount, name);
            System.IO.Directory.CreateDirectory(path);
            directory = path;
            File.WriteAllText(Path.Combine(path, "cpu.max"), $"{quota} {period}");
            return true;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            reasons.Add($"cannot make a cgroup v2 with a cpu quota under {mount}: {exception.Message}");
            RemoveQuietly(directory);
            directory = null;
            return false;
        }
    }

    private static bool TryV1(string mount, string name, long quota, int period, out string? directory, List<string> reasons)
    {
        directory = null;
        try
        {
            string path = Path.Combine(mount, name);
            System.IO.Directory.CreateDirectory(path);
            directory = path;
            File.WriteAllText(Path.Combine(path, "cpu.cfs_period_us"), period.ToString(CultureInfo.InvariantCulture));
            File.WriteAllText(Path.Combine(path, "cpu.cfs_quota_us"), quota.ToString(CultureInfo.InvariantCulture));
            return true;
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException)
        {
            reasons.Add($"cannot make a cgroup v1 with a cpu quota under {mount}: {exception.Message}");
            RemoveQuietly(directory);
            directory = null;
            return false;
        }
    }

    private static void RemoveQuietly(string? directory)
    {
        try
        {
            if (directory is not null)
            {
                System.IO.Directory.Delete(directory);
            }
        }
        catch (IOException)
        {
        }
    }
}

using System.Globalization;
using System.Text;

namespace SlimPool.Scheduling;

/// <summary>
/// The CPU quota of the cgroup the process runs in, in CPUs (a container limited to 1.5 CPUs: 1.5), as Linux's CFS
/// bandwidth control enforces it: cgroup v2 <c>cpu.max</c> ("20000 100000": 0.2; "max 100000": none), or v1
/// <c>cpu.cfs_quota_us</c> / <c>cpu.cfs_period_us</c> (-1: none). Every level from the process's cgroup up to the
/// hierarchy's mount limits it, so the smallest counts (as Go's runtime reads it). No quota, not Linux, or nothing
/// readable: null.
/// </summary>
/// <remarks>
/// The process's cgroup comes from <c>/proc/self/cgroup</c> and the hierarchy's mount from <c>/proc/self/mountinfo</c>:
/// v1's cpu controller where it is mounted (a hybrid host keeps cpu there), else the v2 unified hierarchy. Reading
/// costs a handful of small files; the caller caches it (<see cref="EffectiveCores"/>). Stateless and thread-safe.
/// </remarks>
internal static class CpuQuota
{
    /// <summary>
    /// The quota in CPUs, or null. <paramref name="root"/> prefixes every path read (tests point it at a synthetic
    /// tree).
    /// </summary>
    public static double? Read(string root = "") => ReadLimit(root)?.Cpus;

    /// <summary>
    /// The limit: the smallest quota up the hierarchy, with the longest enforcement period of the levels whose quota
    /// is below <paramref name="throttlingBelow"/> CPUs (any of them can hold the process back for its whole period: a
    /// parent's quota is shared with its other children, which may spend it; one at or above the CPUs the process may
    /// run on, with nothing else to spend it, cannot), or the smallest quota's own period where none is. Null where
    /// none is set. <paramref name="root"/> prefixes every path read.
    /// </summary>
    public static CpuLimit? ReadLimit(string root = "", double throttlingBelow = double.PositiveInfinity)
    {
        if (root.Length == 0 && !OperatingSystem.IsLinux())
        {
            return null;
        }

        string? cgroups = ReadText(root, "/proc/self/cgroup");
        string? mounts = ReadText(root, "/proc/self/mountinfo");
        if (cgroups is null || mounts is null || FindCgroup(cgroups, mounts) is not var (directory, mount, v2))
        {
            return null;
        }

        CpuLimit? smallest = null;
        TimeSpan longestThrottling = TimeSpan.Zero;
        for (string? level = directory; level is not null; level = Parent(level, mount))
        {
            CpuLimit? own = v2
                ? ParseCpuMaxLimit(ReadText(root, level + "/cpu.max"))
                : ParseCfsLimit(ReadText(root, level + "/cpu.cfs_quota_us"), ReadText(root, level + "/cpu.cfs_period_us"));
            if (own is CpuLimit found)
            {
                if (smallest is not CpuLimit soFar || found.Cpus < soFar.Cpus)
                {
                    smallest = found;
                }

                if (found.Cpus < throttlingBelow && found.Period > longestThrottling)
                {
                    longestThrottling = found.Period;
                }
            }
        }

        return smallest is CpuLimit limit && longestThrottling > TimeSpan.Zero ? limit with { Period = longestThrottling } : smallest;
    }

    /// <summary>Parses v2's <c>cpu.max</c>, "&lt;quota|max&gt; &lt;period&gt;" in microseconds: CPUs, or null for none.</summary>
    public static double? ParseCpuMax(string? text) => ParseCpuMaxLimit(text)?.Cpus;

    /// <summary>Parses v2's <c>cpu.max</c> into the quota and its period, or null for none.</summary>
    public static CpuLimit? ParseCpuMaxLimit(string? text)
    {
        string[] fields = (text ?? "").Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries);
        if (fields.Length is < 1 or > 2 || fields[0] == "max")
        {
            return null;
        }

        return Ratio(fields[0], fields.Length == 2 ? fields[1] : "100000"); // the kernel's default period
    }

    /// <summary>Parses v1's <c>cpu.cfs_quota_us</c> and <c>cpu.cfs_period_us</c>: CPUs, or null for none (-1).</summary>
    public static double? ParseCfs(string? quota, string? period) => ParseCfsLimit(quota, period)?.Cpus;

    /// <summary>Parses v1's <c>cpu.cfs_quota_us</c> and <c>cpu.cfs_period_us</c> into the quota and its period, or null.</summary>
    public static CpuLimit? ParseCfsLimit(string? quota, string? period) =>
        quota is null || period is null ? null : Ratio(quota.Trim(), period.Trim());

    /// <summary>
    /// The directory of the process's cpu cgroup, as the path of the mount's own filesystem: the cgroup path
    /// (<c>/proc/self/cgroup</c>) made relative to the mount's root and put under its mount point
    /// (<c>/proc/self/mountinfo</c>); the mount point itself where a cgroup namespace hides the rest. Null if none.
    /// </summary>
    public static (string Directory, string Mount, bool V2)? FindCgroup(string procSelfCgroup, string mountInfo)
    {
        string? v1Path = null;
        string? v2Path = null;
        foreach (string line in procSelfCgroup.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            // "4:cpu,cpuacct:/docker/abc" (v1) or "0::/user.slice/x.scope" (v2)
            string[] parts = line.Split(':', 3);
            if (parts.Length != 3)
            {
                continue;
            }

            if (parts[0] == "0" && parts[1].Length == 0)
            {
                v2Path = parts[2];
            }
            else if (parts[1].Split(',').Contains("cpu"))
            {
                v1Path = parts[2];
            }
        }

        (string Root, string Point)? v1Mount = null;
        (string Root, string Point)? v2Mount = null;
        foreach (string line in mountInfo.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            // "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime shared:7 - cgroup cgroup rw,cpu"
            string[] sides = line.Split(" - ", 2);
            string[] mount = sides[0].Split(' ');
            string[] source = sides.Length == 2 ? sides[1].Split(' ') : [];
            if (mount.Length < 5 || source.Length < 3)
            {
                continue;
            }

            if (source[0] == "cgroup" && source[2].Split(',').Contains("cpu"))
            {
                v1Mount ??= (Unescape(mount[3]), Unescape(mount[4]));
            }
            else if (source[0] == "cgroup2")
            {
                v2Mount ??= (Unescape(mount[3]), Unescape(mount[4]));
            }
        }

        if (v1Path is not null && v1Mount is var (root1, point1))
        {
            return (Under(point1, root1, v1Path), point1, false);
        }

        if (v2Path is not null && v2Mount is var (root2, point2))
        {
            return (Under(point2, root2, v2Path), point2, true);
        }

        return null;
    }

    private const long MaxPeriodMicroseconds = 1_000_000;

    // Microseconds of CPU time per period of microseconds.
    private static CpuLimit? Ratio(string quota, string period)
    {
        if (!long.TryParse(quota, NumberStyles.Integer, CultureInfo.InvariantCulture, out long q) || q <= 0
            || !long.TryParse(period, NumberStyles.Integer, CultureInfo.InvariantCulture, out long p) || p <= 0)
        {
            return null; // -1 (v1's "none") or unreadable
        }

        // The kernel keeps a period within 1 ms to 1 s; a file that says more (a synthetic view) is taken as 1 s.
        return new CpuLimit((double)q / p, TimeSpan.FromMicroseconds(Math.Min(p, MaxPeriodMicroseconds)));
    }

    // The cgroup's directory: its path relative to the mount's root, under the mount point.
    private static string Under(string point, string root, string path)
    {
        string relative;
        if (root == "/")
        {
            relative = path;
        }
        else if (path == root || path.StartsWith(root + "/", StringComparison.Ordinal))
        {
            relative = path[root.Length..];
        }
        else
        {
            return point; // a namespace's view: the mount is the process's own cgroup
        }

        return relative is "" or "/" ? point : point.TrimEnd('/') + relative;
    }

    // The level above, while still inside the mount.
    private static string? Parent(string directory, string mount)
    {
        if (directory.Length <= mount.TrimEnd('/').Length)
        {
            return null;
        }

        int slash = directory.LastIndexOf('/');
        return slash <= 0 ? null : directory[..slash];
    }

    // mountinfo escapes space, tab, newline and backslash as \ooo (octal).
    private static string Unescape(string field)
    {
        if (!field.Contains('\\'))
        {
            return field;
        }

        var text = new StringBuilder(field.Length);
        for (int i = 0; i < field.Length; i++)
        {
            if (field[i] == '\\' && i + 3 < field.Length && IsOctal(field.AsSpan(i + 1, 3)))
            {
                ReadOnlySpan<char> octal = field.AsSpan(i + 1, 3);
                text.Append((char)(((octal[0] - '0') << 6) | ((octal[1] - '0') << 3) | (octal[2] - '0')));
                i += 3;
            }
            else
            {
                text.Append(field[i]);
            }
        }

        return text.ToString();
    }

    private static bool IsOctal(ReadOnlySpan<char> digits) =>
        digits[0] is >= '0' and <= '3' && digits[1] is >= '0' and <= '7' && digits[2] is >= '0' and <= '7';

    private static string? ReadText(string root, string path)
    {
        try
        {
            return File.ReadAllText(root + path);
        }
        catch (Exception exception) when (exception is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return null;
        }
    }
}

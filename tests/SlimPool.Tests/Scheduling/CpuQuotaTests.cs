using SlimPool.Scheduling;

namespace SlimPool.Tests.Scheduling;

/// <summary>
/// Reading a cgroup's CPU quota from text and from a synthetic /proc and /sys tree: v2 <c>cpu.max</c>, v1
/// <c>cpu.cfs_quota_us</c>/<c>cpu.cfs_period_us</c>, the process's cgroup under its mount, the smallest quota up the
/// hierarchy; and the effective core count built on it.
/// </summary>
public sealed class CpuQuotaTests : IDisposable
{
    private readonly string _root = Path.Combine(Path.GetTempPath(), "slimpool-cgroup-" + Guid.NewGuid().ToString("N"));

    [Theory]
    [InlineData("max 100000", null)]
    [InlineData("max", null)]
    [InlineData("20000 100000\n", 0.2)]
    [InlineData("150000 100000", 1.5)]
    [InlineData("400000 100000", 4.0)]
    [InlineData("50000", 0.5)] // the period defaults to 100 ms
    [InlineData("", null)]
    [InlineData("-1 100000", null)]
    [InlineData("abc 100000", null)]
    [InlineData("20000 0", null)]
    [InlineData("1 2 3", null)]
    public void ParseCpuMax_Text_GivesCpusOrNone(string text, double? expected) =>
        Assert.Equal(expected, CpuQuota.ParseCpuMax(text));

    [Theory]
    [InlineData("-1\n", "100000\n", null)]
    [InlineData("20000\n", "100000\n", 0.2)]
    [InlineData("250000", "100000", 2.5)]
    [InlineData("50000", "50000", 1.0)]
    [InlineData("x", "100000", null)]
    [InlineData("20000", "0", null)]
    public void ParseCfs_QuotaAndPeriod_GivesCpusOrNone(string quota, string period, double? expected) =>
        Assert.Equal(expected, CpuQuota.ParseCfs(quota, period));

    [Fact]
    public void ParseCfs_MissingFile_GivesNone() => Assert.Null(CpuQuota.ParseCfs(null, "100000"));

    [Fact]
    public void FindCgroup_HybridHost_TakesV1sCpuHierarchy()
    {
        const string Cgroups = "9:name=systemd:/\n4:memory:/x\n2:cpuacct:/\n1:cpu:/jobs/a\n0::/\n";
        const string Mounts =
            "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
            "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n" +
            "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

        Assert.Equal(("/sys/fs/cgroup/cpu/jobs/a", "/sys/fs/cgroup/cpu", false), CpuQuota.FindCgroup(Cgroups, Mounts));
    }

    [Fact]
    public void FindCgroup_V2Only_TakesTheUnifiedHierarchy()
    {
        const string Mounts = "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";

        Assert.Equal(("/sys/fs/cgroup/user.slice/app.scope", "/sys/fs/cgroup", true), CpuQuota.FindCgroup("0::/user.slice/app.scope\n", Mounts));
    }

    [Fact]
    public void FindCgroup_ContainerWithANamespace_TakesTheMountItself()
    {
        // Docker with a cgroup namespace: the process sees "/" and the mount's root is its own cgroup.
        const string Mounts = "700 690 0:31 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup ro\n";

        Assert.Equal(("/sys/fs/cgroup", "/sys/fs/cgroup", true), CpuQuota.FindCgroup("0::/\n", Mounts));
    }

    [Fact]
    public void FindCgroup_MountRootIsAnAncestor_StripsIt()
    {
        // v1 in a container without a namespace: the mount shows /docker/abc of the host's hierarchy.
        const string Mounts = "500 400 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n";

        Assert.Equal(
            ("/sys/fs/cgroup/cpu,cpuacct/inner", "/sys/fs/cgroup/cpu,cpuacct", false),
            CpuQuota.FindCgroup("3:cpu,cpuacct:/docker/abc/inner\n", Mounts));
    }

    [Fact]
    public void FindCgroup_MountPointWithASpace_IsUnescaped()
    {
        const string Mounts = "41 31 0:38 / /mnt/my\\040cgroups rw - cgroup2 cgroup2 rw\n";

        Assert.Equal(("/mnt/my cgroups/a", "/mnt/my cgroups", true), CpuQuota.FindCgroup("0::/a\n", Mounts));
    }

    [Fact]
    public void FindCgroup_NoCgroupMount_GivesNone() =>
        Assert.Null(CpuQuota.FindCgroup("0::/a\n", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"));

    [Fact]
    public void Read_V2TreeWithQuotasAtTwoLevels_TakesTheSmallest()
    {
        WriteProc("0::/outer/inner\n", "29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
        Write("/sys/fs/cgroup/outer/cpu.max", "50000 100000\n");        // 0.5 CPU for the parent
        Write("/sys/fs/cgroup/outer/inner/cpu.max", "max 100000\n");    // none of its own

        Assert.Equal(0.5, CpuQuota.Read(_root));
    }

    [Fact]
    public void Read_V1Tree_ReadsQuotaOverPeriod()
    {
        WriteProc("1:cpu,cpuacct:/job\n", "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n");
        Write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
        Write("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
        Write("/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_quota_us", "20000\n");
        Write("/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_period_us", "100000\n");

        Assert.Equal(0.2, CpuQuota.Read(_root));
    }

    [Theory]
    [InlineData("50000 100000", "600000 400000", 0.5, 400)]   // both below the 2 CPUs: either can hold the process back
    [InlineData("6400000 1000000", "50000 100000", 0.5, 100)] // a parent of 64 CPUs a second cannot: nobody can spend it
    [InlineData("1000000 1000000", "50000 100000", 0.5, 1000)] // a parent of 1 CPU a second can: its other children spend it
    [InlineData("400000 100000", "300000 100000", 3.0, 100)]  // neither can: the smallest quota's own period
    public void ReadLimit_QuotasAtTwoLevels_TakesTheSmallestQuotaAndTheLongestPeriodThatCanThrottle(string outer, string inner, double cpus, int periodMs)
    {
        WriteProc("0::/outer/inner\n", "29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
        Write("/sys/fs/cgroup/outer/cpu.max", outer + "\n");
        Write("/sys/fs/cgroup/outer/inner/cpu.max", inner + "\n");

        Assert.Equal(new CpuLimit(cpus, TimeSpan.FromMilliseconds(periodMs)), CpuQuota.ReadLimit(_root, throttlingBelow: 2));
    }

    [Theory]
    [InlineData("20000 100000", 0.2, 100)]
    [InlineData("50000", 0.5, 100)]            // the period defaults to 100 ms
    [InlineData("2000000 1000000", 2.0, 1000)]
    public void ParseCpuMaxLimit_Text_GivesTheQuotaAndItsPeriod(string text, double cpus, int periodMs) =>
        Assert.Equal(new CpuLimit(cpus, TimeSpan.FromMilliseconds(periodMs)), CpuQuota.ParseCpuMaxLimit(text));

    [Fact]
    public void ParseCfsLimit_QuotaAndPeriod_GivesTheQuotaAndItsPeriod() =>
        Assert.Equal(new CpuLimit(0.1, TimeSpan.FromMilliseconds(300)), CpuQuota.ParseCfsLimit("30000\n", "300000\n"));

    [Fact]
    public void Read_NoQuotaAnywhere_GivesNone()
    {
        WriteProc("0::/a\n", "29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
        Write("/sys/fs/cgroup/a/cpu.max", "max 100000\n");

        Assert.Null(CpuQuota.Read(_root));
    }

    [Fact]
    public void Read_NoProcFiles_GivesNone() => Assert.Null(CpuQuota.Read(_root));

    [Theory]
    [InlineData(null, 8, 8)]
    [InlineData(0.2, 8, 1)]   // never below one core
    [InlineData(1.5, 8, 2)]   // a fraction of a core rounds up
    [InlineData(4.0, 8, 4)]
    [InlineData(16.0, 8, 8)]  // a quota above the processor count changes nothing
    public void EffectiveCores_QuotaAndProcessorCount_TakesTheSmallerRoundedUp(double? quota, int processors, int expected) =>
        Assert.Equal(expected, new EffectiveCores(() => Limit(quota), processors).Get(nowMs: 0));

    [Theory]
    [InlineData(null, 8, 8, 0)]
    [InlineData(0.2, 1, 8, 100)]
    [InlineData(1.0, 1, 2, 100)]  // one CPU of two: the runtime's processor count (1) already took the quota in
    [InlineData(1.5, 2, 2, 100)]
    [InlineData(2.0, 2, 2, 0)]    // as much as the process can use: it never throttles
    [InlineData(16.0, 8, 8, 0)]
    public void EffectiveCores_QuotaPeriod_IsTheQuotasWhereItCanThrottleElseZero(double? quota, int processors, int available, int expectedMs) =>
        Assert.Equal(TimeSpan.FromMilliseconds(expectedMs), new EffectiveCores(() => Limit(quota), processors, available).QuotaPeriod(nowMs: 0));

    [Fact]
    public void ParseCfsLimit_PeriodBeyondTheKernelsLongest_IsTakenAsOneSecond() =>
        Assert.Equal(TimeSpan.FromSeconds(1), CpuQuota.ParseCfsLimit("100000", long.MaxValue.ToString(System.Globalization.CultureInfo.InvariantCulture))?.Period);

    [Theory]
    [InlineData(50, 0, 50)]      // no quota: the timeout
    [InlineData(50, 100, 100)]   // the default timeout under the default enforcement period
    [InlineData(500, 100, 500)]  // a timeout longer than the period
    [InlineData(50, 1000, 1000)]
    public void StarvationGuardPeriodMs_TimeoutAndQuotaPeriod_TakesTheLonger(int timeoutMs, int quotaPeriodMs, int expectedMs) =>
        Assert.Equal(expectedMs, StarvationGuard.PeriodMs(timeoutMs, TimeSpan.FromMilliseconds(quotaPeriodMs)));

    [Fact]
    public void EffectiveCores_QuotaChanges_IsReadAgainOnlyAfterTheInterval()
    {
        double? quota = 2;
        int reads = 0;
        var cores = new EffectiveCores(() => { reads++; return Limit(quota); }, processorCount: 8);
        long interval = (long)EffectiveCores.RereadInterval.TotalMilliseconds;

        Assert.Equal(2, cores.Get(1_000));
        quota = 5;
        Assert.Equal(2, cores.Get(1_000 + interval - 1)); // cached
        Assert.Equal(1, reads);
        Assert.Equal(5, cores.Get(1_000 + interval));     // re-read
        Assert.Equal(2, reads);
    }

    public void Dispose()
    {
        if (Directory.Exists(_root))
        {
            Directory.Delete(_root, recursive: true);
        }
    }

    private static CpuLimit? Limit(double? cpus) => cpus is double value ? new CpuLimit(value, TimeSpan.FromMilliseconds(100)) : null;

    private void WriteProc(string cgroup, string mountInfo)
    {
        Write("/proc/self/cgroup", cgroup);
        Write("/proc/self/mountinfo", mountInfo);
    }

    private void Write(string path, string text)
    {
        string file = _root + path;
        Directory.CreateDirectory(Path.GetDirectoryName(file)!);
        File.WriteAllText(file, text);
    }
}

namespace SlimPool.Scheduling;

/// <summary>
/// A cgroup's CPU bandwidth limit as Linux's CFS enforces it (<see cref="CpuQuota"/>): <see cref="Cpus"/> worth of CPU
/// time in every <see cref="Period"/>. Once the process has used a period's share, every one of its threads waits for
/// the next period, however many cores sit idle.
/// </summary>
/// <param name="Cpus">The quota in CPUs (0.2: a fifth of one CPU's time).</param>
/// <param name="Period">The enforcement period (the kernel's default: 100 ms).</param>
internal readonly record struct CpuLimit(double Cpus, TimeSpan Period);

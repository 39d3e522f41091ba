using System.Runtime.InteropServices;

namespace SlimPool.Bench.Reporting;

/// <summary>The header every run prints: runtime (exact patch), OS, CPU model and core count.</summary>
internal static class MachineInfo
{
    public static string Describe() =>
        $".NET {Environment.Version} ({RuntimeInformation.FrameworkDescription}), {RuntimeInformation.OSDescription} {RuntimeInformation.OSArchitecture}, " +
        $"{CpuModel()}, {Environment.ProcessorCount} cores, {(System.Runtime.GCSettings.IsServerGC ? "server" : "workstation")} GC{(IsConcurrentGC ? " (concurrent)" : "")}";

    /// <summary>Whether background (concurrent) GC is on for this process.</summary>
    public static bool IsConcurrentGC => AppContext.TryGetSwitch("System.GC.Concurrent", out bool on) ? on : true;

    public static string CpuModel()
    {
        try
        {
            if (File.Exists("/proc/cpuinfo"))
            {
                string? line = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
                if (line is not null)
                {
                    return line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
                }
            }
        }
        catch (IOException)
        {
        }

        return RuntimeInformation.ProcessArchitecture.ToString();
    }
}

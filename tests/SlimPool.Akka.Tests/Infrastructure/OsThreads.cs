namespace SlimPool.Akka.Tests.Infrastructure;

/// <summary>
/// The process's live threads as the operating system lists them (Linux: <c>/proc/self/task/*/comm</c>, where .NET
/// writes each thread's name, cut to 15 bytes). A thread that has exited is gone from the list, so this sees what a
/// pool's own counters cannot: whether its threads really ended.
/// </summary>
internal static class OsThreads
{
    public static bool CanList => Directory.Exists("/proc/self/task");

    /// <summary>How many live threads have a name that starts with <paramref name="prefix"/> (at most 15 bytes of it count).</summary>
    public static int CountNamed(string prefix)
    {
        string visible = prefix.Length > 15 ? prefix[..15] : prefix;
        int count = 0;
        foreach (string task in Directory.EnumerateDirectories("/proc/self/task"))
        {
            try
            {
                if (File.ReadAllText(Path.Combine(task, "comm")).StartsWith(visible, StringComparison.Ordinal))
                {
                    count++;
                }
            }
            catch (IOException)
            {
                // The thread exited between the listing and the read.
            }
        }

        return count;
    }
}

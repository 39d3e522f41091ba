using Akka.Configuration;
using Akka.Configuration.Hocon;

namespace SlimPool.Akka;

/// <summary>
/// Reads a dispatcher's <c>slim-pool { ... }</c> block into the options of the pool that runs it. Every key is
/// optional; a value that is not valid throws a <see cref="ConfigurationException"/> that names the key's full path.
/// </summary>
/// <remarks>The keys, their values and defaults are listed on <see cref="SlimPoolExecutorServiceConfigurator"/>.</remarks>
internal static class SlimPoolDispatcherSettings
{
    /// <summary>The block inside a dispatcher's configuration that holds SlimPool's settings.</summary>
    public const string Section = "slim-pool";

    // Every key the block may hold: any other is a mistake (a typo would otherwise be ignored without a word).
    private static readonly string[] s_keys = ["worker-count", "queue", "idle-wait", "starvation-timeout", "max-workers", "thread-name-prefix", "slow-item-threshold"];

    /// <summary>
    /// The options for a dispatcher's pool. Akka's actors bring their own <see cref="TaskScheduler"/>, so the workers
    /// run without SlimPool's SynchronizationContext, as the built-in pool's threads do.
    /// </summary>
    /// <param name="dispatcherConfig">The dispatcher's configuration (what Akka hands the executor configurator).</param>
    /// <param name="dispatcherId">The dispatcher's id, for thread names and for the paths in error messages.</param>
    public static SlimThreadPoolOptions ToOptions(Config? dispatcherConfig, string dispatcherId)
    {
        string prefix = $"{dispatcherId}.{Section}.";
        Config section = ReadSection(dispatcherConfig, dispatcherId, prefix);
        var options = new SlimThreadPoolOptions { UseSynchronizationContext = false, Name = dispatcherId };

        int workerCount = ReadInt(section, prefix, "worker-count");
        if (workerCount != 0)
        {
            Apply(prefix, "worker-count", workerCount, value => options.WorkerCount = value, "0 (one per core) or from 1 to 32767");
        }

        string queue = ReadString(section, prefix, "queue", "work-stealing").Trim();
        options.Queue = queue switch
        {
            "work-stealing" => WorkQueueKind.WorkStealing,
            "lock-free" => WorkQueueKind.LockFree,
            "locked" => WorkQueueKind.Locked,
            _ => throw Invalid(prefix, "queue", queue, "work-stealing, lock-free or locked"),
        };

        string idleWait = ReadString(section, prefix, "idle-wait", "spin-then-park").Trim();
        options.IdleWait = idleWait switch
        {
            "spin-then-park" => IdleWaitKind.SpinThenPark,
            "auto-reset-event" => IdleWaitKind.AutoResetEvent,
            _ => throw Invalid(prefix, "idle-wait", idleWait, "spin-then-park or auto-reset-event"),
        };

        string starvation = ReadString(section, prefix, "starvation-timeout", string.Empty).Trim();
        if (starvation is "off" or "infinite")
        {
            options.StarvationTimeout = Timeout.InfiniteTimeSpan;
        }
        else if (starvation.Length != 0)
        {
            TimeSpan timeout = ReadTimeSpan(section, prefix, "starvation-timeout", starvation);
            Apply(prefix, "starvation-timeout", timeout, value => options.StarvationTimeout = value, "a positive duration (50ms) or off");
        }

        string slow = ReadString(section, prefix, "slow-item-threshold", string.Empty).Trim();
        if (slow is not ("" or "off" or "infinite"))
        {
            TimeSpan threshold = ReadTimeSpan(section, prefix, "slow-item-threshold", slow);
            Apply(prefix, "slow-item-threshold", threshold, value => options.SlowItemThreshold = value, "a duration of at least 1ms (100ms) or off");
        }

        int maxWorkers = ReadInt(section, prefix, "max-workers");
        if (maxWorkers != 0)
        {
            // The pool checks this against WorkerCount only when it is created; checked here, the error names the key.
            string expected = $"0 (no ceiling of its own) or from worker-count ({options.WorkerCount}) to {SlimThreadPoolOptions.MaxWorkerCount}";
            if (maxWorkers < options.WorkerCount)
            {
                throw Invalid(prefix, "max-workers", maxWorkers.ToString(System.Globalization.CultureInfo.InvariantCulture), expected);
            }

            Apply(prefix, "max-workers", maxWorkers, value => options.MaxWorkers = value, expected);
        }

        string threadNamePrefix = ReadString(section, prefix, "thread-name-prefix", string.Empty);
        if (threadNamePrefix.Length != 0)
        {
            options.Name = threadNamePrefix; // HOCON reads a blank string as empty, so this is never only white space
        }

        return options;
    }

    // The dispatcher's slim-pool block, checked: it must be a block (slim-pool = 5 is not), and hold only known keys.
    private static Config ReadSection(Config? dispatcherConfig, string dispatcherId, string prefix)
    {
        if (dispatcherConfig is null || !dispatcherConfig.HasPath(Section))
        {
            return Config.Empty;
        }

        HoconValue value = dispatcherConfig.GetValue(Section);
        if (!value.IsObject())
        {
            throw new ConfigurationException($"{dispatcherId}.{Section} = \"{value}\" is not valid: expected a block, {Section} {{ {string.Join(", ", s_keys)} }}.");
        }

        foreach (string key in value.GetObject().Items.Keys)
        {
            if (Array.IndexOf(s_keys, key) < 0)
            {
                throw new ConfigurationException($"{prefix}{key} is not a {Section} setting: expected one of {string.Join(", ", s_keys)}.");
            }
        }

        return dispatcherConfig.GetConfig(Section);
    }

    private static int ReadInt(Config section, string prefix, string key)
    {
        string text = ReadString(section, prefix, key, "0").Trim();
        return int.TryParse(text, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out int value)
            ? value
            : throw Invalid(prefix, key, text, "a whole number");
    }

    private static string ReadString(Config section, string prefix, string key, string @default)
    {
        try
        {
            return section.HasPath(key) ? section.GetString(key, @default) ?? @default : @default;
        }
        catch (Exception exception) when (exception is not ConfigurationException)
        {
            throw new ConfigurationException($"{prefix}{key} could not be read: {exception.Message}", exception);
        }
    }

    private static TimeSpan ReadTimeSpan(Config section, string prefix, string key, string text)
    {
        try
        {
            return section.GetTimeSpan(key, allowInfinite: false);
        }
        catch (Exception exception) when (exception is not ConfigurationException)
        {
            throw new ConfigurationException($"{prefix}{key} = \"{text}\" is not valid: expected a duration such as 50ms, or off.", exception);
        }
    }

    private static void Apply<T>(string prefix, string key, T value, Action<T> set, string expected)
    {
        try
        {
            set(value);
        }
        catch (ArgumentException exception)
        {
            throw new ConfigurationException($"{prefix}{key} = \"{value}\" is not valid: expected {expected}.", exception);
        }
    }

    private static ConfigurationException Invalid(string prefix, string key, string value, string expected) =>
        new($"{prefix}{key} = \"{value}\" is not valid: expected {expected}.");
}

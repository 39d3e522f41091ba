namespace SlimPool.Bench;

/// <summary>What the user asked for on the command line.</summary>
internal sealed record BenchSettings
{
    public bool Quick { get; init; }

    public int Repeat { get; init; } = 5;

    public int? Workers { get; init; }

    public IReadOnlyList<string>? Pools { get; init; }

    public IReadOnlyList<int>? Ticks { get; init; }

    public bool Help { get; init; }

    public const string Usage = """
        SlimPool comparison program: SlimPool against System.Threading.ThreadPool, side by side, in one run.

        Usage: dotnet run -c Release --project bench/SlimPool.Bench -- [options]

        Options:
          --quick            small sizes and 2 repetitions (a smoke test, about 30 s)
          --repeat N         measured repetitions per cell after a warm-up (default 5; 2 with --quick)
          --workers N        worker count for SlimPool pools (default: one per core)
          --pools A,B,...    pools to run (default: ThreadPool, ThreadPool-unsafe, Locked+ARE, LockFree+ARE,
                             SlimPool); 'all' adds every SlimPool queue × idle-wait combination
          --ticks A,B,...    tiny-work sizes in ticks of 100 ns (default 0,1,10,100,1000,10000; 0,10,100,1000
                             with --quick)
          --help             this text

        Each cell reports the median wall time with min–max over the repetitions, items per second, the ratio
        to ThreadPool (below 1.00x is faster than the built-in pool) and parallel efficiency.
        """;

    /// <summary>Parses the arguments; throws <see cref="ArgumentException"/> with a one-line message on bad input.</summary>
    public static BenchSettings Parse(IReadOnlyList<string> args)
    {
        var settings = new BenchSettings();
        bool repeatGiven = false;
        for (int i = 0; i < args.Count; i++)
        {
            string arg = args[i];
            switch (arg)
            {
                case "--quick":
                    settings = settings with { Quick = true };
                    break;
                case "--help" or "-h" or "-?":
                    settings = settings with { Help = true };
                    break;
                case "--repeat":
                    settings = settings with { Repeat = PositiveInt(arg, Value(args, ref i)) };
                    repeatGiven = true;
                    break;
                case "--workers":
                    settings = settings with { Workers = PositiveInt(arg, Value(args, ref i)) };
                    break;
                case "--pools":
                    settings = settings with { Pools = Value(args, ref i).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) };
                    break;
                case "--ticks":
                    settings = settings with { Ticks = Value(args, ref i).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(t => NonNegativeInt(arg, t)).ToArray() };
                    break;
                default:
                    throw new ArgumentException($"unknown option '{arg}' (see --help)");
            }
        }

        if (settings.Quick && !repeatGiven)
        {
            settings = settings with { Repeat = 2 };
        }

        return settings;
    }

    private static string Value(IReadOnlyList<string> args, ref int i)
    {
        if (i + 1 >= args.Count)
        {
            throw new ArgumentException($"option '{args[i]}' needs a value (see --help)");
        }

        return args[++i];
    }

    private static int NonNegativeInt(string option, string value) =>
        int.TryParse(value, out int n) && n >= 0 ? n : throw new ArgumentException($"option '{option}' needs non-negative integers, got '{value}'");

    private static int PositiveInt(string option, string value) =>
        int.TryParse(value, out int n) && n > 0 ? n : throw new ArgumentException($"option '{option}' needs a positive integer, got '{value}'");
}

using System.Diagnostics;
using System.Globalization;
using SlimPool.Soak;

// Soak: a mixed workload against SlimPool for a while, failing if any item is lost or run twice, or if memory
// or thread count drifts upward. Usage: dotnet run -c Release --project tests/SlimPool.Soak -- --minutes N
// (or --seconds N). Exit code 0 = passed, 1 = failed, 2 = bad arguments.
TimeSpan duration = TimeSpan.FromMinutes(1);
for (int i = 0; i < args.Length; i++)
{
    bool hasValue = i + 1 < args.Length && double.TryParse(args[i + 1], NumberStyles.Float, CultureInfo.InvariantCulture, out double value) && value > 0;
    switch (args[i])
    {
        case "--minutes" when hasValue:
            duration = TimeSpan.FromMinutes(double.Parse(args[++i], CultureInfo.InvariantCulture));
            break;
        case "--seconds" when hasValue:
            duration = TimeSpan.FromSeconds(double.Parse(args[++i], CultureInfo.InvariantCulture));
            break;
        default:
            Console.Error.WriteLine($"error: unexpected argument '{args[i]}'; usage: --minutes N | --seconds N (positive)");
            return 2;
    }
}

Console.WriteLine($"SlimPool soak for {duration.TotalMinutes:0.##} min on {Environment.ProcessorCount} cores");
var soak = new SoakRun(duration, seed: Environment.TickCount);
bool passed = soak.Run(Console.Out);
Console.WriteLine(passed ? "soak: passed" : "soak: FAILED");
return passed ? 0 : 1;

using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

// Runs the micro-benchmarks: dotnet run -c Release --project bench/SlimPool.Micro -- [BenchmarkDotNet options],
// for example --filter '*QueueAndExecute*'. "--short" is shorthand for BenchmarkDotNet's "--job short" (one launch,
// 3 warm-up and 3 measured iterations): enough to check that the benchmarks work, not to publish numbers.
//
// The default toolchain works on net10.0 with BenchmarkDotNet 0.14.0 (it has no net10.0 moniker of its own, but
// builds the generated project for the host's target framework), so every benchmark case runs in a fresh process,
// with a fresh built-in ThreadPool. BenchmarkDotNet's own "--inProcess" option runs them in this process instead,
// which skips that build (about 10 s here) at the cost of that isolation.
IConfig config = DefaultConfig.Instance;

string[] arguments = [.. args.SelectMany(static arg => arg == "--short" ? ["--job", "short"] : new[] { arg })];
IEnumerable<Summary> summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(arguments, config);

// A non-zero exit code when a benchmark failed (threw, timed out or did not validate), so scripts notice.
return summaries.Any(static s => s.HasCriticalValidationErrors || s.Reports.Any(static r => !r.Success)) ? 1 : 0;

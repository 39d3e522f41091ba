using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

// BenchmarkDotNet 0.14 (the version this machine's NuGet copy has) does not know the net10.0 runtime moniker, so
// benchmarks run in-process instead of in a generated project. "--short" runs a quick job (3 + 3 iterations).
bool quick = args.Contains("--short");
Job job = (quick ? Job.ShortRun : Job.Default).WithToolchain(InProcessEmitToolchain.Instance);
IConfig config = DefaultConfig.Instance.AddJob(job).WithOptions(ConfigOptions.JoinSummary);
BenchmarkSwitcher.FromAssembly(typeof(SlimPool.Micro.QueueAndExecuteBenchmarks).Assembly)
    .Run([.. args.Where(a => a != "--short")], config);

using System.Runtime.CompilerServices;
using CsCheck;

namespace SlimPool.Tests.Composition;

/// <summary>
/// The property: a generated program, run against a real pool, breaks none of the promises its scope checks. A failing
/// program is shrunk by CsCheck and printed as C# with the promises it broke. <c>SLIMPOOL_COMPOSE_SEED</c> (or CsCheck's
/// own <c>CsCheck_Seed</c>) replays a seed CsCheck printed.
/// </summary>
internal static class ComposeProperty
{
    private static readonly ConditionalWeakTable<ComposeProgram, string> s_broken = new();
    private static long s_programsRun;

    /// <summary>How many programs this process has run (the soak reports it).</summary>
    public static long ProgramsRun => Interlocked.Read(ref s_programsRun);

    /// <summary>
    /// Runs random programs of <paramref name="scope"/> for <paramref name="seconds"/>, throwing CsCheck's report (the
    /// smallest failing program it found, as C#, and its seed) on a failure; with a seed, replays that program first.
    /// </summary>
    public static void Sample(ComposeScope scope, int seconds, Action<string>? writeLine = null, string? seed = null) =>
        ComposeGen.Program(scope).Sample(
            program => Check(program, scope),
            writeLine: writeLine,
            seed: seed ?? Environment.GetEnvironmentVariable("SLIMPOOL_COMPOSE_SEED"),
            time: seconds,
            threads: 1,
            print: Print);

    /// <summary>Runs one program and throws <see cref="ComposeFailure"/> listing the promises it broke (those the scope checks).</summary>
    public static void Check(ComposeProgram program, ComposeScope scope)
    {
        IReadOnlyList<Violation> broken = Run(program, scope);
        if (broken.Count > 0)
        {
            string text = string.Join(Environment.NewLine, broken.Select(v => "//   " + v));
            s_broken.AddOrUpdate(program, text);
            throw new ComposeFailure($"{broken.Count} promise(s) broken:{Environment.NewLine}{text}");
        }
    }

    /// <summary>The violations of one run of <paramref name="program"/> that <paramref name="scope"/> checks (hangs and surprises always).</summary>
    public static IReadOnlyList<Violation> Run(ComposeProgram program, ComposeScope scope)
    {
        ProgramRun run = ProgramRun.Execute(program);
        Interlocked.Increment(ref s_programsRun);
        return [.. PromiseChecks.All(run).Where(v => scope.Checks is null || scope.Checks.Contains(v.Check) || v.Check is Promise.NoHang or Promise.ApiBehaves)];
    }

    /// <summary>The program as C#, followed by what it broke when it last ran.</summary>
    public static string Print(ComposeProgram program) =>
        program + (s_broken.TryGetValue(program, out string? broken) ? $"// broke:{Environment.NewLine}{broken}{Environment.NewLine}" : string.Empty);
}

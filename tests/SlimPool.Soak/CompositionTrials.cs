using SlimPool.Tests.Composition;

namespace SlimPool.Soak;

/// <summary>
/// The long version of the composition test (tests/SlimPool.Tests/Composition): random programs that combine groups,
/// priorities, every queue and idle wait, blocking, chains, async items, context flow and shutdowns, each checked
/// against its ledger. A trial runs programs for a second; a failure prints CsCheck's shrunk program as C# and its seed.
/// </summary>
internal sealed class CompositionTrials
{
    private const int SecondsPerTrial = 1;

    public int Count { get; private set; }

    /// <summary>Runs one trial; false (with the shrunk program logged) if a program broke a promise.</summary>
    public bool RunOne(TextWriter log)
    {
        try
        {
            ComposeProperty.Sample(ComposeScope.Everything, SecondsPerTrial);
            Count++;
            return true;
        }
        catch (Exception exception)
        {
            log.WriteLine($"composition trial {Count + 1}: {exception.Message}");
            return false;
        }
    }

    public void Report(TextWriter log) =>
        log.WriteLine($"composition trials {Count:N0}: {ComposeProperty.ProgramsRun:N0} random programs, every promise kept");
}

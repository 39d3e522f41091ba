namespace SlimPool.Tests.Composition;

/// <summary>Collects one check's violations, keeping the first few messages and counting the rest.</summary>
internal sealed class Findings(string check)
{
    private const int Shown = 6;
    private readonly List<string> _messages = [];
    private int _count;

    public void Add(string message)
    {
        if (_count++ < Shown)
        {
            _messages.Add(message);
        }
    }

    public IEnumerable<Violation> ToViolations()
    {
        foreach (string message in _messages)
        {
            yield return new Violation(check, message);
        }

        if (_count > Shown)
        {
            yield return new Violation(check, $"... and {_count - Shown} more like these");
        }
    }
}

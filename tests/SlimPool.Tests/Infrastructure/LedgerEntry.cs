namespace SlimPool.Tests.Infrastructure;

/// <summary>A state object for the <c>(Action&lt;object?&gt;, state)</c> overloads: marks one ledger slot.</summary>
internal sealed class LedgerEntry(Ledger ledger, int id)
{
    public int Id => id;

    public void Mark() => ledger.Mark(id);
}

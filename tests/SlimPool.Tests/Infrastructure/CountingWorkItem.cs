namespace SlimPool.Tests.Infrastructure;

/// <summary>A reusable work item that counts its executions and signals an optional countdown.</summary>
internal sealed class CountingWorkItem(CountdownEvent? done) : IWorkItem
{
    private int _executions;

    public int Executions => Volatile.Read(ref _executions);

    public void Execute()
    {
        Interlocked.Increment(ref _executions);
        done?.Signal();
    }
}

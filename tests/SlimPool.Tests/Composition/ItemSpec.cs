using System.Globalization;

namespace SlimPool.Tests.Composition;

/// <summary>
/// One generated item: where it goes (<see cref="Group"/> −1 for the pool, else a group's index), what it does, how it
/// is queued. <see cref="Amount"/> is µs for <see cref="ItemKind.Compute"/>, ms for the blocking kinds, steps for a
/// chain and awaits for an async item; for <see cref="ItemKind.Send"/> it names the target (<see cref="SendTarget"/>).
/// </summary>
internal sealed record ItemSpec(int Group, ItemKind Kind, WorkItemPriority Priority, QueueShape Shape, bool SuppressFlow, int Amount)
{
    public bool IsTry => Shape is QueueShape.TryQueue or QueueShape.TryQueueWorkItem or QueueShape.TryBatch;

    /// <summary>Queued with its producer's neighbouring batch items in one <c>QueueBatch</c> call.</summary>
    public bool IsBatch => Shape is QueueShape.Batch or QueueShape.TryBatch;

    public bool IsWorkItem => Shape is QueueShape.QueueWorkItem or QueueShape.TryQueueWorkItem;

    /// <summary>Steps the item runs: an async item one more than its awaits, a chain step (each an item of its own) one.</summary>
    public int StepCount => Kind == ItemKind.Async ? Amount + 1 : 1;

    /// <summary>Whether the item runs as a task (its own ExecutionContext, as every task has).</summary>
    public bool IsTask => Kind is ItemKind.Async or ItemKind.Continuation or ItemKind.LongRunning;

    /// <summary>A Send item's target: −1 for the pool, else a group's index (encoded in <see cref="Amount"/> as target + 1).</summary>
    public int SendTarget => Amount - 1;

    /// <summary>The line of C# that queues it; <paramref name="label"/> names the item in the checks' messages.</summary>
    public string ToCSharp(string label)
    {
        string target = Group < 0 ? "pool" : $"g{Group}";
        string call = Kind switch
        {
            ItemKind.Async =>
                $"{target}.Run(() => AsyncSteps(Item(\"{label}\"), awaits: {Amount}));",
            ItemKind.Continuation =>
                $"var a{label.Replace('.', '_')} = new TaskCompletionSource(); a{label.Replace('.', '_')}.Task.ContinueWith(_ => Compute(Item(\"{label}\")), {target}.TaskScheduler); " +
                $"ExecutionContext.Run(completerContext, _ => a{label.Replace('.', '_')}.SetResult(), null);",
            ItemKind.LongRunning =>
                $"Task.Factory.StartNew(() => Block(Item(\"{label}\", ms: {Amount})), CancellationToken.None, TaskCreationOptions.LongRunning, pool.TaskScheduler);",
            _ => PlainCall(target, label),
        };

        return SuppressFlow ? $"using (ExecutionContext.SuppressFlow()) {{ {call} }}" : call;
    }

    public override string ToString() => ToCSharp("item");

    private string PlainCall(string target, string label)
    {
        string method = Shape == QueueShape.QueueAsync ? "QueueAsync" : (IsTry ? "TryQueue" : "Queue") + (IsBatch ? "Batch" : string.Empty);
        string body = Kind switch
        {
            ItemKind.Compute => $"Compute, Item(\"{label}\", us: {Amount})",
            ItemKind.Interrupt => $"ComputeThenInterrupt, Item(\"{label}\", us: {Amount})",
            ItemKind.Block => $"Block, Item(\"{label}\", ms: {Amount})",
            ItemKind.BlockHinted => $"BlockInRunBlocking, Item(\"{label}\", ms: {Amount})",
            ItemKind.Throw => $"Throw, Item(\"{label}\")",
            ItemKind.Cancelled or ItemKind.CancelledWhileQueued => $"Compute, Item(\"{label}\", us: {Amount})",
            ItemKind.Send => $"SendTo, Item(\"{label}\", to: {(SendTarget < 0 ? "pool" : $"g{SendTarget}")}.SynchronizationContext)",
            _ => $"Chain, Item(\"{label}\", steps: {Amount}, next: {(Group < 0 ? "pool" : "groups[(g + 1) % groups.Length]")}.{(Shape == QueueShape.QueueAsync ? "Queue" : method.Replace("Batch", string.Empty, StringComparison.Ordinal))}<Item>(Chain, next, preferLocal: true))",
        };

        if (IsWorkItem)
        {
            body = $"new WorkItem({body})";
        }
        else if (IsBatch)
        {
            // One call takes this item and its producer's batch neighbours: shown as a batch of one each.
            int comma = body.IndexOf(", ", StringComparison.Ordinal);
            body = $"{body[..comma]}, [{body[(comma + 2)..]}]";
        }

        string extra = Kind switch
        {
            ItemKind.Cancelled => ", cancelledToken",
            ItemKind.CancelledWhileQueued => ", cancelLater.Token",
            _ => Priority != WorkItemPriority.Normal ? $", WorkItemPriority.{Priority}" : string.Empty,
        };
        string wait = Shape == QueueShape.QueueAsync ? ".AsTask().Wait()" : string.Empty;
        string call = string.Create(CultureInfo.InvariantCulture, $"{target}.{method}({body}{extra}){wait};");
        return Kind == ItemKind.CancelledWhileQueued ? $"{{ var cancelLater = new CancellationTokenSource(); {call} cancelLater.Cancel(); }}" : call;
    }
}

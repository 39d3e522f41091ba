namespace SlimPool.Workers;

/// <summary>A reported slow item, named by the counts of its worker's slot while it ran (<see cref="WorkerState.OnReported"/>).</summary>
internal sealed record ReportedItem(long BusyChanges, long Completed, int Nestings);

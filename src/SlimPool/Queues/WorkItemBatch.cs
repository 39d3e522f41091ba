namespace SlimPool.Queues;

/// <summary>A batch of <see cref="IWorkItem"/>s (none null: the caller checked), all with one ExecutionContext.</summary>
internal readonly ref struct WorkItemBatch : IBatchSource
{
    private readonly ReadOnlySpan<IWorkItem> _items;
    private readonly ExecutionContext? _context;

    public WorkItemBatch(ReadOnlySpan<IWorkItem> items, ExecutionContext? context)
    {
        _items = items;
        _context = context;
    }

    public int Count => _items.Length;

    public QueuedWorkItem At(int index) => new(_items[index], state: null, _context);
}

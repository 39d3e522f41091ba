namespace SlimPool.Queues;

/// <summary>A batch of <see cref="IWorkItem"/>s, none of them null (the caller checked).</summary>
internal readonly ref struct WorkItemBatch : IBatchSource
{
    private readonly ReadOnlySpan<IWorkItem> _items;

    public WorkItemBatch(ReadOnlySpan<IWorkItem> items) => _items = items;

    public int Count => _items.Length;

    public object CallbackAt(int index) => _items[index];

    public object? StateAt(int index) => null;
}

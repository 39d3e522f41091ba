using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

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

    public bool CopyTo(int start, Span<object?> callbacks, Span<object?> states, Span<object?> contexts)
    {
        // The items are the callbacks: one bulk copy, seen as references (an IWorkItem reference is an object reference).
        ReadOnlySpan<IWorkItem> items = _items.Slice(start, callbacks.Length);
        MemoryMarshal.CreateReadOnlySpan(ref Unsafe.As<IWorkItem, object?>(ref MemoryMarshal.GetReference(items)), items.Length)
            .CopyTo(callbacks);
        if (_context is not null)
        {
            contexts.Fill(_context);
            return true;
        }

        return false;
    }
}

namespace SlimPool.Queues;

/// <summary>
/// Storage for one <see cref="QueuedWorkItem"/> in a queue's array: its three references as fields of their own.
/// </summary>
/// <remarks>
/// A free cell holds no reference (whoever takes an entry clears the cell with <see cref="Take"/>), so
/// <see cref="Write"/> stores the state and the context only when they are set. Most items have neither, and each
/// reference stored into the heap costs a write barrier: storing the entry as one struct cost three, which was a third
/// of an outside producer's time (perf, one producer with the workers held). Null stores (clearing) cost none.
/// </remarks>
internal struct EntryCell
{
    public object? Callback;
    public object? State;
    public ExecutionContext? Context;

    /// <summary>Writes <paramref name="item"/> into a free (cleared) cell.</summary>
    public void Write(in QueuedWorkItem item)
    {
        Callback = item.StoredCallback;
        if (item.StoredState is { } state)
        {
            State = state;
        }

        if (item.Context is { } context)
        {
            Context = context;
        }
    }

    /// <summary>Reads the entry and clears the cell: the cell keeps no delegate or state alive.</summary>
    public QueuedWorkItem Take()
    {
        var item = new QueuedWorkItem(Callback!, State, Context);
        Clear();
        return item;
    }

    /// <summary>Reads the entry and leaves the cell as it is (a reader that does not own the cell).</summary>
    public readonly QueuedWorkItem Read() => new(Callback!, State, Context);

    /// <summary>Drops the references the cell holds.</summary>
    public void Clear()
    {
        Callback = null;
        State = null;
        Context = null;
    }
}

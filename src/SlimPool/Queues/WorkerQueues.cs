using SlimPool.Scheduling;

namespace SlimPool.Queues;

/// <summary>
/// One worker's part of a <see cref="WorkStealingWorkQueue"/>: its LIFO slot (the item it queued last), its ring of
/// the items it queued before (first in, first out), and its batch of items taken from the shared queue (oldest first).
/// </summary>
/// <param name="owner">The queue these belong to; a thread-static reference is used only by its owner queue.</param>
/// <param name="workerIndex">The worker's index in the pool.</param>
internal sealed class WorkerQueues(WorkStealingWorkQueue owner, int workerIndex)
{
    /// <summary>
    /// How many times in a row the owner takes its slot before its ring's oldest gets a turn. Tokio's is 3; here a
    /// turn of the ring costs a compare-and-swap more than a slot's, and with 3 the comparison program's self-requeue
    /// (64 chains on 2 workers) took 32–44 ms against 22–28 ms with the deque before; with 15, 25–28 ms.
    /// </summary>
    public const int SlotBudget = 15;

    /// <summary>The item this worker queued last: the owner runs it next; thieves take it only after a grace.</summary>
    public LifoSlot Slot { get; } = new();

    /// <summary>The items this worker queued before its last: the owner takes the oldest, thieves steal half.</summary>
    public LocalRunQueue Ring { get; } = new();

    /// <summary>Items this worker took from the shared queue in one batch, taken oldest first.</summary>
    public RefillBatch Batch { get; } = new();

    public WorkStealingWorkQueue Owner => owner;

    public int WorkerIndex => workerIndex;

    /// <summary>Owner only: its looks since its last fair look (see <see cref="WorkStealingWorkQueue.TryDequeue(out QueuedWorkItem)"/>).</summary>
    public int Looks;

    /// <summary>Owner only: its next look is a fair one (<see cref="WorkStealingWorkQueue.TryDequeue(WorkerQueues?, out QueuedWorkItem)"/>),
    /// whatever its count of looks: the worker has taken High items from their lane for as long as a fair interval.</summary>
    public void MakeNextLookFair() => Looks = WorkStealingWorkQueue.FairInterval - 1;

    /// <summary>Owner only: its next look steals before it takes from the shared queue (see <see cref="WorkStealingWorkQueue.LookAtSiblingsFirst"/>).</summary>
    public bool StealFirst;

    /// <summary>Owner only: its takes from the slot since it last looked at the ring.</summary>
    private int _slotRuns;

    /// <summary>1 while the owner moves the slot's entry to the ring (see <see cref="Push"/>); its own line, read by thieves.</summary>
    private PaddedInt _slotMove;

    /// <summary>Owner only: the item running came from the ring past the slot's budget (see <see cref="Push"/>).</summary>
    private bool _slotBypassed;

    /// <summary>Owner only: the state of the xorshift that picks the first sibling to steal from.</summary>
    private uint _random = (uint)workerIndex * 2654435761u + 1;

    /// <summary>Owner only: the index its last fair look visited (see <see cref="NextFairVictim"/>).</summary>
    private int _fairVictim;

    /// <summary>Owner only: its fair looks so far; every other one looks at a sibling first (<see cref="NextFairLookAtSiblingFirst"/>).</summary>
    private int _fairLooks;

    /// <summary>
    /// Owner only: the index its last sibling-first fair look visited (<see cref="NextSiblingFirstVictim"/>). A counter of
    /// its own: shared with the other fair looks, which alternate with these and step it too, an even number of siblings
    /// (an odd number of workers) left these looks visiting every other sibling only.
    /// </summary>
    private int _siblingFirstVictim;

    /// <summary>Owner only: each sibling's slot version at this worker's last fair look at it (by sibling index).</summary>
    private long[] _slotVersionsSeen = [];

    public bool IsEmpty => Slot.IsEmpty && Ring.IsEmpty && Batch.IsEmpty;

    /// <summary>Whether the ring and the batch hold nothing: what a thief may take without a grace (the slot aside).</summary>
    public bool IsEmptyButTheSlot => Ring.IsEmpty && Batch.IsEmpty;

    public int Count => (Slot.IsEmpty ? 0 : 1) + Ring.Count + Batch.Count;

    /// <summary>
    /// Owner only: queues <paramref name="item"/> to run next; the slot's previous entry moves to the ring's back (and
    /// with a full ring, half of it to <paramref name="overflow"/>). While the item running came from the ring because
    /// the slot had used its budget, what it queues goes to the ring's back instead (tokio's "LIFO disabled for the
    /// rest of the tick"): the slot keeps the entry it holds, and no entry moves.
    /// </summary>
    public void Push(in QueuedWorkItem item, LockFreeQueue<PaddedHeadAndTail> overflow)
    {
        if (_slotBypassed)
        {
            Ring.PushBack(item, overflow);
            return;
        }

        // The slot's entry moves: announced before the slot's compare-and-swap (a full fence), so a thief that sees
        // the version moved sees the announcement, and withdrawn with a release store after the entry's publication in
        // the ring, so a thief that sees it withdrawn sees the entry there (WaitForSlotMove).
        bool moving = Slot.OwnerHolds;
        if (moving)
        {
            Volatile.Write(ref _slotMove.Value, 1);
        }

        if (Slot.TryTake(out QueuedWorkItem previous))
        {
            // In neither place until the push: a sibling's re-check may miss it, and the pool's publish then sees that
            // sibling parked after its fence (the caller's), so the wake check covers it.
            Ring.PushBack(previous, overflow);
        }

        Slot.Put(item);
        if (moving)
        {
            Volatile.Write(ref _slotMove.Value, 0);
        }
    }

    /// <summary>As <see cref="Push"/>, the entry given as its three references (the producer's path builds no entry).</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    public void PushEntry(object callback, object? state, ExecutionContext? context, LockFreeQueue<PaddedHeadAndTail> overflow) =>
        Push(new QueuedWorkItem(callback, state, context), overflow);

    /// <summary>
    /// Any thread, after a steal of the slot failed: waits while the owner moves the slot's entry to the ring (a few
    /// stores; see <see cref="Push"/>), so that the thief finds it there rather than nowhere.
    /// </summary>
    public void WaitForSlotMove()
    {
        var spinner = default(UninterruptedSpin);
        while (Volatile.Read(ref _slotMove.Value) != 0)
        {
            spinner.SpinOnce();
        }
    }

    /// <summary>
    /// Owner only: the slot's entry, unless it ran <see cref="SlotBudget"/> times in a row; then the ring's oldest. A
    /// chain of items that queue their successor therefore runs on this core from the slot, and every
    /// <see cref="SlotBudget"/> + 1 looks at most one goes to the ring, which nothing buries. The slot's entry stays where it is meanwhile (visible and
    /// stealable), rather than moving to the ring's back as in tokio: no item is ever between two places on this
    /// path, and the ring's item queues what it queues behind the ring (see <see cref="Push"/>).
    /// </summary>
    public bool TryTakeOwn(out QueuedWorkItem item)
    {
        _slotBypassed = false;
        if (_slotRuns < SlotBudget && Slot.TryTake(out item))
        {
            _slotRuns++;
            return true;
        }

        bool slotHeld = _slotRuns >= SlotBudget;
        _slotRuns = 0;
        if (Ring.TryPop(out item))
        {
            _slotBypassed = slotHeld;
            return true;
        }

        // The ring was empty (or thieves emptied it): the slot's entry then waits for nothing.
        if (Slot.TryTake(out item))
        {
            _slotRuns = 1;
            return true;
        }

        return false;
    }

    /// <summary>
    /// Owner only: takes the slot's entry when it is a <typeparamref name="T"/> and the worker's next look would take it
    /// (an ordinary look, not a fair one, within the slot's budget: <see cref="TryTakeOwn"/>'s first step), and counts that look as
    /// <see cref="WorkStealingWorkQueue.TryDequeue(WorkerQueues?, out QueuedWorkItem)"/> would; false, and nothing
    /// counted, otherwise. The entry's state and context are not returned: the caller takes only entries that have none.
    /// </summary>
    public bool TryTakeSlotEntryOf<T>([System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out T? entry)
        where T : class
    {
        if (Looks + 1 < WorkStealingWorkQueue.FairInterval && _slotRuns < SlotBudget
            && Slot.OwnerEntryCallback is T && Slot.TryTake(out QueuedWorkItem item))
        {
            System.Diagnostics.Debug.Assert(item.StoredState is null && item.Context is null, "only entries without state or context are taken here");
            Looks++;
            _slotRuns++;
            _slotBypassed = false;
            entry = (T)item.StoredCallback;
            return true;
        }

        entry = null;
        return false;
    }

    /// <summary>Owner only: the index a fair look visits next, each in turn (a round, not a draw: the bound in
    /// <see cref="WorkStealingWorkQueue"/>'s remarks is then certain).</summary>
    public int NextFairVictim(int count)
    {
        int next = _fairVictim + 1;
        _fairVictim = next < count ? next : 0;
        return _fairVictim;
    }

    /// <summary>Owner only: the sibling its next sibling-first fair look visits (each in turn, itself included).</summary>
    public int NextSiblingFirstVictim(int count)
    {
        int next = _siblingFirstVictim + 1;
        _siblingFirstVictim = next < count ? next : 0;
        return _siblingFirstVictim;
    }

    /// <summary>
    /// Owner only, at a fair look: whether this one looks at a sibling first (every other one), rather than at the
    /// oldest item from outside (see <see cref="WorkStealingWorkQueue.FairInterval"/>).
    /// </summary>
    public bool NextFairLookAtSiblingFirst() => (++_fairLooks & 1) == 0;

    /// <summary>
    /// Owner only: whether sibling <paramref name="index"/>'s slot showed <paramref name="version"/> (odd: holding an
    /// entry) at this worker's previous fair look at it too; records it for the next.
    /// </summary>
    public bool SawSlotVersionBefore(int index, long version)
    {
        if (index >= _slotVersionsSeen.Length)
        {
            Array.Resize(ref _slotVersionsSeen, index + 1);
        }

        bool seen = (version & 1) != 0 && _slotVersionsSeen[index] == version;
        _slotVersionsSeen[index] = version;
        return seen;
    }

    /// <summary>Owner only: the sibling to look at first when stealing (a different one each time).</summary>
    public int NextVictimStart(int count)
    {
        uint x = _random;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        _random = x;
        return (int)(x % (uint)count);
    }
}

using SlimPool.Groups;
using SlimPool.Queues;

namespace SlimPool.Workers;

/// <summary>
/// What SlimPool keeps per thread, in one object behind one thread-static field: the worker it is, if any
/// (<see cref="CurrentWorker"/>), the group whose items it runs (<see cref="GroupTurns"/>) and the mark of machinery
/// entries (<see cref="ItemAccounting"/>).
/// </summary>
/// <remarks>
/// <para>A thread-static read on Linux is a call through <c>__tls_get_addr</c>, about 3 ns; a group's turn needs the
/// worker, the group it suspends, the mark and the thread itself, and paid nine such reads before they were kept here.
/// A path that needs several now pays one read (<see cref="Current"/>), and a worker's loop, which holds its own,
/// none.</para>
/// <para><b>Ownership.</b> Only the thread the object belongs to reads or writes it: no field needs a fence. The
/// fields are grouped by the type that owns them, which alone writes them. A thread that never runs a turn nor is a
/// worker never gets one (<see cref="Current"/> is null there); <see cref="GetOrCreate"/> makes it on the first
/// write.</para>
/// </remarks>
internal sealed class PoolThreadLocals
{
    [ThreadStatic]
    private static PoolThreadLocals? t_locals;

    private PoolThreadLocals(Thread thread) => Thread = thread;

    /// <summary>The current thread's object, or null if it has none yet (it then holds nothing: no worker, no group).</summary>
    public static PoolThreadLocals? Current => t_locals;

    /// <summary>The thread this object belongs to.</summary>
    public Thread Thread { get; }

    // CurrentWorker's: set as the thread enters a pool's worker loop, cleared as it leaves.

    /// <summary>The pool whose worker this thread is, or null.</summary>
    public SlimThreadPool? Pool;

    /// <summary>That pool's workers, or null.</summary>
    public WorkerSet? Workers;

    /// <summary>The worker's blocking scopes, or null.</summary>
    public WorkerBlockingState? Blocking;

    /// <summary>The worker's slot state, or null.</summary>
    public WorkerState? State;

    /// <summary>The ExecutionContext the worker runs items in when they flowed none, or null.</summary>
    public ExecutionContext? CleanContext;

    /// <summary>The group queues the worker drops later, or null.</summary>
    public DeferredQueueDrops? QueueDrops;

    /// <summary>The worker's own queues (its slot, ring and batch) when its pool steals work, or null.</summary>
    public WorkerQueues? OwnQueues;

    // WorkerLoop's: set as the thread enters the loop; LoopItem only while the loop runs an item.

    /// <summary>The worker's own name and priority, which each item it runs gets back, or null.</summary>
    public WorkerThreadIdentity? Identity;

    /// <summary>The callback of the item the worker's loop runs now (not one run inside it), or null between items.</summary>
    public object? LoopItem;

    // GroupTurns': the group whose item this thread runs, and those it left suspended under what it runs now.

    /// <summary>The group whose turn this thread runs, or null.</summary>
    public GroupTurns? CurrentGroup;

    /// <summary>The groups whose items this thread left suspended, innermost last (<see cref="SuspendedCount"/> of them).</summary>
    public GroupTurns?[]? Suspended;

    /// <summary>How many entries of <see cref="Suspended"/> are in use.</summary>
    public int SuspendedCount;

    // ItemAccounting's.

    /// <summary>Set by a machinery entry (a turn, a lane's ticket) before it returns; taken by whoever ran the entry.</summary>
    public bool NotAUserItem;

    /// <summary>The current thread's object, made on the first call on this thread.</summary>
    public static PoolThreadLocals GetOrCreate() => t_locals ?? Create();

    private static PoolThreadLocals Create() => t_locals = new PoolThreadLocals(Thread.CurrentThread);

    /// <summary>The pool's worker slot when this thread is one of <paramref name="pool"/>'s workers, else null.</summary>
    public WorkerState? StateOn(SlimThreadPool pool) => Pool == pool ? State : null;
}

namespace SlimPool.Groups;

/// <summary>
/// A group's shutdown state (<see cref="SlimThreadPoolGroup.ShutdownAsync"/>), made by its first shutdown call so that a
/// group that is never shut down alone does not carry it.
/// </summary>
internal sealed class GroupShutdown
{
    private List<AbandonedWorkItem>? _abandoned;

    // Made by the first QueueAsync that waits for the pool's room, under Lock; the shutdown cancels it after setting Task
    // under Lock. So a waiter either takes the token before Task is set, and the cancellation after reaches it, or finds
    // Task set and gets a cancelled token: none waits on past the group's close.
    private CancellationTokenSource? _closing;

    /// <summary>
    /// The state every group shares that had nothing pending when it closed: it drained then, so no item can come
    /// (a continuation is refused once the group is marked drained) and an abandon has nothing to hand back. Read only:
    /// a group holding it takes neither its lock nor its list.
    /// </summary>
    public static GroupShutdown DrainedAtClose { get; } = new();

    /// <summary>Guards the other members: the object itself (a monitor), so a group's shutdown allocates one object.</summary>
    public object Lock => this;

    /// <summary>The items the group's abandon handed back (under <see cref="Lock"/>).</summary>
    public List<AbandonedWorkItem> Abandoned => _abandoned ??= [];

    /// <summary>Whether an abandon was asked for (under <see cref="Lock"/>).</summary>
    public bool AbandonRequested { get; set; }

    /// <summary>The shutdown's outcome, once begun (under <see cref="Lock"/>).</summary>
    public Task<ShutdownResult>? Task { get; set; }

    /// <summary>
    /// A token cancelled once the group's shutdown has begun (at once if it has), for a <c>QueueAsync</c> that waits for
    /// the pool's room: the group's close must end that wait, not the pool's room. Under <see cref="Lock"/>.
    /// </summary>
    public CancellationToken Closing => Task is not null ? new CancellationToken(canceled: true) : (_closing ??= new()).Token;

    /// <summary>
    /// Ends the waits of <see cref="Closing"/>: called right after <see cref="Task"/> is set, outside <see cref="Lock"/>
    /// (their cancellation runs the pool gate's removal of each waiter).
    /// </summary>
    public void CancelClosing() => Volatile.Read(ref _closing)?.Cancel();
}

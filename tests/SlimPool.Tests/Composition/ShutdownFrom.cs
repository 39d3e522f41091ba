namespace SlimPool.Tests.Composition;

/// <summary>Which thread a program's controller shuts down from.</summary>
internal enum ShutdownFrom
{
    /// <summary>The controller's own thread, after its delay.</summary>
    Controller,

    /// <summary>An item the controller queues to the pool: the shutdown is called on one of the pool's workers, not waited for there.</summary>
    Worker,

    /// <summary>
    /// An item the controller queues to a group (the target itself for a group's shutdown, the first group for the pool's):
    /// the shutdown is called inside one of that group's items, not waited for there; with no group, as <see cref="Worker"/>.
    /// </summary>
    GroupItem,
}

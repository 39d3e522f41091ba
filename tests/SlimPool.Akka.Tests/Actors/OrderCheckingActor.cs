using Akka.Actor;

namespace SlimPool.Akka.Tests.Actors;

/// <summary>Expects 0, 1, 2, ... from its one sender; on <see cref="Report"/> answers with what it saw.</summary>
internal sealed class OrderCheckingActor : ReceiveActor
{
    private readonly string _threadNamePrefix;
    private int _next;
    private bool _inOrder = true;
    private bool _onSlimPool = true;

    public OrderCheckingActor(string threadNamePrefix)
    {
        _threadNamePrefix = threadNamePrefix;
        Receive<int>(value =>
        {
            _inOrder &= value == _next;
            _next = value + 1;
            _onSlimPool &= Thread.CurrentThread.Name?.StartsWith(_threadNamePrefix, StringComparison.Ordinal) == true;
        });
        Receive<Report>(_ => Sender.Tell(new Seen(_next, _inOrder, _onSlimPool)));
    }

    public sealed record Report;

    public sealed record Seen(int Count, bool InOrder, bool OnSlimPool);
}

using Proto;
using SlimPool.ProtoActor.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Actors;

/// <summary>Takes ints 0, 1, 2, ... and answers a <see cref="Report"/> with how many came, whether in order, and how many ran on the pool.</summary>
internal sealed class SequenceActor(string poolName) : IActor
{
    private int _next;
    private bool _inOrder = true;
    private int _onPool;

    public Task ReceiveAsync(IContext context)
    {
        switch (context.Message)
        {
            case int seq:
                _inOrder &= seq == _next;
                _next = seq + 1;
                _onPool += ProtoSystems.OnPool(poolName) ? 1 : 0;
                break;
            case Report:
                context.Respond(new Seen(_next, _inOrder, _onPool));
                break;
        }

        return Task.CompletedTask;
    }

    public sealed record Report;

    public sealed record Seen(int Received, bool InOrder, int OnPool);
}

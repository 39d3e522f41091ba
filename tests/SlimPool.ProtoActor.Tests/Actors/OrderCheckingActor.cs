using Proto;
using SlimPool.ProtoActor.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Actors;

/// <summary>
/// Checks that each sender's messages arrive in the order it sent them, one at a time, on the pool's workers; answers
/// a <see cref="Report"/> with what it saw.
/// </summary>
internal sealed class OrderCheckingActor(string poolName, int senders) : IActor
{
    private readonly int[] _next = new int[senders];
    private int _received;
    private bool _inOrder = true;
    private bool _onPool = true;
    private int _inside;
    private bool _overlapped;

    public Task ReceiveAsync(IContext context)
    {
        switch (context.Message)
        {
            case Numbered numbered:
                // Two runs of one mailbox at once would show here (the mailbox's Busy flag is what orders them).
                _overlapped |= Interlocked.Increment(ref _inside) != 1;
                _inOrder &= numbered.Seq == _next[numbered.Sender];
                _next[numbered.Sender] = numbered.Seq + 1;
                _onPool &= ProtoSystems.OnPool(poolName);
                _received++;
                Interlocked.Decrement(ref _inside);
                break;
            case Report:
                context.Respond(new Seen(_received, _inOrder, _onPool, _overlapped));
                break;
        }

        return Task.CompletedTask;
    }

    public sealed record Numbered(int Sender, int Seq);

    public sealed record Report;

    public sealed record Seen(int Received, bool InOrder, bool OnPool, bool Overlapped);
}

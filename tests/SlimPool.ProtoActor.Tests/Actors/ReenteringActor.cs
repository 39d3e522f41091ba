using Proto;
using SlimPool.ProtoActor.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Actors;

/// <summary>
/// On "slow", waits for <c>gate</c> with <see cref="IContext.ReenterAfter(Task, Action{Task})"/>: the mailbox goes on
/// with other messages meanwhile, and the continuation comes back as a message of its own, answering the original sender.
/// </summary>
internal sealed class ReenteringActor(string poolName, Task gate) : IActor
{
    private int _handledMeanwhile;

    public Task ReceiveAsync(IContext context)
    {
        switch (context.Message)
        {
            case "slow":
                context.ReenterAfter(gate, _ => context.Respond(new Reentered(_handledMeanwhile, ProtoSystems.OnPool(poolName))));
                break;
            case "quick":
                _handledMeanwhile++;
                context.Respond("quick");
                break;
        }

        return Task.CompletedTask;
    }

    public sealed record Reentered(int HandledMeanwhile, bool OnPool);
}

using Proto;
using SlimPool.ProtoActor.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Remote;

/// <summary>
/// Answers a <see cref="Greeting"/> with its node's pool name; on a <see cref="Relay"/>, asks the node actor at the
/// relay's address (the other node) from inside its receive, and answers with both replies.
/// </summary>
internal sealed class NodeActor(string poolName) : IActor
{
    public async Task ReceiveAsync(IContext context)
    {
        switch (context.Message)
        {
            case Greeting greeting:
                context.Respond(new Reply(greeting.Text, poolName, ProtoSystems.OnPool(poolName)));
                break;
            case Relay relay:
                Reply remote = await context.RequestAsync<Reply>(PID.FromAddress(relay.Address, RemoteNode.ActorName), new Greeting(relay.Text), ProtoSystems.RequestTimeout);
                context.Respond(new Relayed(remote, ProtoSystems.OnPool(poolName)));
                break;
        }
    }
}

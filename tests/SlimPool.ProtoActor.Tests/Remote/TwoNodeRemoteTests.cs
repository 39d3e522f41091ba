using Proto;
using SlimPool.ProtoActor.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Remote;

/// <summary>Two actor systems in this process, joined through Proto.Remote (gRPC on 127.0.0.1), each node's actors on its own SlimPool.</summary>
public sealed class TwoNodeRemoteTests
{
    [Fact]
    public void RequestAsync_EachWayBetweenTwoNodes_AnsweredByTheOtherNodesActorOnItsPool()
    {
        using RemoteNode a = RemoteNode.Start();
        using RemoteNode b = RemoteNode.Start();

        Reply fromB = ProtoSystems.Request<Reply>(a.System, RemoteNode.ActorAt(b.Address), new Greeting("a to b"));
        Reply fromA = ProtoSystems.Request<Reply>(b.System, RemoteNode.ActorAt(a.Address), new Greeting("b to a"));

        Assert.Equal(new Reply("a to b", b.Name, OnPool: true), fromB);
        Assert.Equal(new Reply("b to a", a.Name, OnPool: true), fromA);
        Assert.NotEqual(a.Address, b.Address);
        Assert.StartsWith("127.0.0.1:", a.Address, StringComparison.Ordinal);
    }

    [Fact]
    public void RequestAsync_ActorAwaitsTheOtherNodeInsideItsReceive_ManyRelaysAnsweredInOrderOnBothPools()
    {
        const int Relays = 50;
        using RemoteNode a = RemoteNode.Start();
        using RemoteNode b = RemoteNode.Start();
        PID relayOnA = PID.FromAddress(a.Address, RemoteNode.ActorName);

        // Sent from b's root to a's actor, which asks b's actor from inside its receive: three network hops each.
        Task<Relayed>[] relays = [.. Enumerable.Range(0, Relays).Select(i => b.System.Root.RequestAsync<Relayed>(relayOnA, new Relay($"r{i}", b.Address), ProtoSystems.RequestTimeout))];
        Relayed[] answers = SlimPool.Tests.Infrastructure.Bounded.Result(Task.WhenAll(relays), "every relay's answer");

        Assert.Equal(Enumerable.Range(0, Relays).Select(i => new Reply($"r{i}", b.Name, OnPool: true)), answers.Select(r => r.Remote));
        Assert.All(answers, r => Assert.True(r.RelayOnPool, "the relaying actor resumed off its pool"));
        Assert.Equal(0, a.Dispatcher.FallbackRunCount + b.Dispatcher.FallbackRunCount);
    }
}

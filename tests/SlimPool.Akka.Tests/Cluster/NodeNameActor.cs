using Akka.Actor;

namespace SlimPool.Akka.Tests.Cluster;

/// <summary>Answers every message with the address of the node it runs on, and whether it ran on SlimPool.</summary>
internal sealed class NodeNameActor : ReceiveActor
{
    public NodeNameActor(string node, string threadNamePrefix) =>
        ReceiveAny(_ => Sender.Tell(new Answer(node, Thread.CurrentThread.Name?.StartsWith(threadNamePrefix, StringComparison.Ordinal) == true)));

    public sealed record Answer(string Node, bool OnSlimPool);
}

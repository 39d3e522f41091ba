using Akka.Actor;

namespace SlimPool.Akka.Tests.Actors;

/// <summary>Answers every message with itself.</summary>
internal sealed class EchoActor : ReceiveActor
{
    public EchoActor() => ReceiveAny(message => Sender.Tell(message));
}

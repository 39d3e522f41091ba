namespace SlimPool.ProtoActor.Tests.Remote;

/// <summary>Asks a node actor to greet the node actor at <see cref="Address"/> and answer with what came back.</summary>
public sealed record Relay(string Text, string Address);

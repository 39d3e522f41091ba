namespace SlimPool.ProtoActor.Tests.Remote;

/// <summary>Asks a node actor for its node's name.</summary>
public sealed record Greeting(string Text);

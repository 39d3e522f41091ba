namespace SlimPool.ProtoActor.Tests.Remote;

/// <summary>The answer to a <see cref="Relay"/>: the far node's reply, and whether the relaying actor resumed on its own pool.</summary>
public sealed record Relayed(Reply Remote, bool RelayOnPool);

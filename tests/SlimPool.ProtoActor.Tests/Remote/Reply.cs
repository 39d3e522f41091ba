namespace SlimPool.ProtoActor.Tests.Remote;

/// <summary>A node actor's answer: the text back, its pool's name, and whether it ran on that pool.</summary>
public sealed record Reply(string Text, string Pool, bool OnPool);

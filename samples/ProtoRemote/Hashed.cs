namespace ProtoRemote;

/// <summary>A <see cref="HashWorker"/>'s answer: which node and thread ran the job, and the hash.</summary>
public sealed record Hashed(string Node, string Thread, string Hash);

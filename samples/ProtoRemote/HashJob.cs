namespace ProtoRemote;

/// <summary>A job for a <see cref="HashWorker"/>. Records cross the wire with Proto.Remote's JSON serializer.</summary>
public sealed record HashJob(string Text);

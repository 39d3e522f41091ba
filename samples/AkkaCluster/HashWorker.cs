using System.Security.Cryptography;
using System.Text;
using Akka.Actor;

namespace AkkaCluster;

/// <summary>Hashes the text it is sent and answers with the first byte of the hash and the node it ran on.</summary>
internal sealed class HashWorker : ReceiveActor
{
    public HashWorker(string node) =>
        Receive<string>(text => Sender.Tell(new Hashed(node, SHA256.HashData(Encoding.UTF8.GetBytes(text))[0], Thread.CurrentThread.Name ?? "?")));

    public sealed record Hashed(string Node, byte FirstByte, string Thread);
}

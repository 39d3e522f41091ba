using System.Security.Cryptography;
using System.Text;
using Proto;

namespace ProtoRemote;

/// <summary>An ordinary actor: hashes the text it is sent. Nothing in it knows about SlimPool.</summary>
public sealed class HashWorker(string node) : IActor
{
    public Task ReceiveAsync(IContext context)
    {
        if (context.Message is HashJob job)
        {
            string hash = Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(job.Text)));
            context.Respond(new Hashed(node, Thread.CurrentThread.Name ?? "?", hash));
        }

        return Task.CompletedTask;
    }
}

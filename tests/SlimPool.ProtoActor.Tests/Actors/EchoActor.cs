using Proto;

namespace SlimPool.ProtoActor.Tests.Actors;

/// <summary>Answers every string with itself; counts what it handled.</summary>
internal sealed class EchoActor : IActor
{
    public Task ReceiveAsync(IContext context)
    {
        if (context.Message is string text)
        {
            context.Respond(text);
        }

        return Task.CompletedTask;
    }
}

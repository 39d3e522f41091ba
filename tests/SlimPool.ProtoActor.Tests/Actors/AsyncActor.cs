using Proto;
using SlimPool.ProtoActor.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Actors;

/// <summary>
/// Awaits inside its receive (a timer, the built-in pool, another actor) and answers with what it saw: the mailbox
/// must hold the next message until the handler finishes, and the handler must resume on the pool after each await.
/// </summary>
internal sealed class AsyncActor(string poolName, PID echo) : IActor
{
    private int _inside;
    private int _handled;

    public async Task ReceiveAsync(IContext context)
    {
        if (context.Message is not string text)
        {
            return;
        }

        int overlaps = Interlocked.Increment(ref _inside) - 1;
        bool onPool = ProtoSystems.OnPool(poolName);
        await Task.Delay(1);
        onPool &= ProtoSystems.OnPool(poolName);
        int fromBuiltInPool = await Task.Run(() => text.Length);
        onPool &= ProtoSystems.OnPool(poolName);
        string echoed = await context.RequestAsync<string>(echo, text, ProtoSystems.RequestTimeout);
        onPool &= ProtoSystems.OnPool(poolName);
        _handled++;
        Interlocked.Decrement(ref _inside);
        context.Respond(new Outcome(echoed, fromBuiltInPool, onPool, overlaps, _handled));
    }

    public sealed record Outcome(string Echoed, int Length, bool StayedOnPool, int Overlaps, int Handled);
}

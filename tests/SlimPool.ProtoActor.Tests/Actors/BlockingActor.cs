using Proto;

namespace SlimPool.ProtoActor.Tests.Actors;

/// <summary>
/// Blocks its thread on "block" until <c>release</c> is set, without telling the pool (as a careless actor would),
/// after signalling <c>started</c>; the bound is the test's own, so a pool that never runs it fails the test, not CI.
/// </summary>
internal sealed class BlockingActor(ManualResetEventSlim release, CountdownEvent started) : IActor
{
    public Task ReceiveAsync(IContext context)
    {
        if (context.Message is "block")
        {
            started.Signal();
            release.Wait(TimeSpan.FromSeconds(90));
        }

        return Task.CompletedTask;
    }
}

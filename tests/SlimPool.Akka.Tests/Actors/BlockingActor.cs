using Akka.Actor;

namespace SlimPool.Akka.Tests.Actors;

/// <summary>On any message, blocks its thread until <paramref name="release"/> is set (bounded): an actor that calls
/// blocking I/O or waits on a lock, without telling anyone.</summary>
internal sealed class BlockingActor : ReceiveActor
{
    public BlockingActor(ManualResetEventSlim release, CountdownEvent started)
    {
        ReceiveAny(_ =>
        {
            started.Signal();
            release.Wait(TimeSpan.FromSeconds(60));
        });
    }
}

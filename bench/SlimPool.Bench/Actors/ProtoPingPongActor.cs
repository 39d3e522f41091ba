using Proto;

namespace SlimPool.Bench.Actors;

/// <summary>
/// One side of a Proto.Actor pair: sends each <see cref="PingPongActor.Ball"/> to its partner until the ball's bounces
/// run out, then signals the run. The partner's <see cref="PID"/> comes first, as a message, before any ball; a ball is
/// held by one actor at a time, so it is reused rather than allocated per bounce.
/// </summary>
internal sealed class ProtoPingPongActor(CountdownEvent done) : IActor
{
    private PID? _partner;

    public Task ReceiveAsync(IContext context)
    {
        switch (context.Message)
        {
            case PingPongActor.Ball ball:
                if (--ball.BouncesLeft > 0)
                {
                    context.Send(_partner!, ball);
                }
                else
                {
                    done.Signal();
                }

                break;
            case PID partner:
                _partner = partner;
                break;
        }

        return Task.CompletedTask;
    }
}

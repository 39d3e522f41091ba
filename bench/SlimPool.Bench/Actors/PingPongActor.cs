using Akka.Actor;

namespace SlimPool.Bench.Actors;

/// <summary>
/// One side of a pair: sends each <see cref="Ball"/> back to whoever sent it until the ball's bounces run out, then
/// signals the run. A ball is held by one actor at a time (the mailbox hand-off orders the writes), so it is reused
/// rather than allocated per bounce.
/// </summary>
internal sealed class PingPongActor : UntypedActor
{
    private readonly CountdownEvent _done;

    public PingPongActor(CountdownEvent done) => _done = done;

    protected override void OnReceive(object message)
    {
        var ball = (Ball)message;
        if (--ball.BouncesLeft > 0)
        {
            Sender.Tell(ball, Self);
        }
        else
        {
            _done.Signal();
        }
    }

    /// <summary>A message in flight between the two actors of a pair.</summary>
    public sealed class Ball
    {
        public int BouncesLeft;
    }
}

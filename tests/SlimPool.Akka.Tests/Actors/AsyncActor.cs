using Akka.Actor;

namespace SlimPool.Akka.Tests.Actors;

/// <summary>
/// Awaits inside its handler (a timer, the built-in pool, an Ask to another actor) and checks after each await that
/// it is still inside the actor: its context is there, and no other message of its own has started meanwhile.
/// </summary>
internal sealed class AsyncActor : ReceiveActor
{
    private bool _inHandler;
    private int _overlaps;
    private int _handled;

    public AsyncActor(IActorRef echo)
    {
        ReceiveAsync<string>(async message =>
        {
            IActorRef self = Self;
            IActorRef sender = Sender;
            _overlaps += _inHandler ? 1 : 0;
            _inHandler = true;
            await Task.Delay(1); // resumes from a timer thread
            bool inside = Context.Self.Equals(self);
            await Task.Run(() => Thread.SpinWait(100)); // resumes from the built-in pool
            inside &= Context.Self.Equals(self);
            string echoed = await echo.Ask<string>(message, TimeSpan.FromSeconds(30)); // resumes from another actor's reply
            inside &= Context.Self.Equals(self) && Sender.Equals(sender);
            _inHandler = false;
            _handled++;
            sender.Tell(new Outcome(echoed, inside, _overlaps, _handled));
        });
        Receive<Piped>(piped => piped.ReplyTo.Tell(piped.Value + 1));
        Receive<PipeRequest>(request =>
        {
            IActorRef replyTo = Sender;
            Task.Run(() => new Piped(request.Value, replyTo)).PipeTo(Self);
        });
    }

    public sealed record Outcome(string Echoed, bool StayedInsideTheActor, int Overlaps, int Handled);

    public sealed record PipeRequest(int Value);

    public sealed record Piped(int Value, IActorRef ReplyTo);
}

using System.Diagnostics;
using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Actors on serial queues answering each other: pairs of serial queues pass one message back and forth, so every
/// message finds its queue idle and is a turn of one item (SlimPool's groups of one against the hand-written mailbox of
/// <see cref="MailboxSerialQueue{TPool}"/> on the built-in pool, which schedules itself on the worker's local queue here).
/// One pair measures the hand-off one message at a time; 4 × cores pairs keep every core busy.
/// </summary>
internal sealed class SerialPingPongScenario : IScenario
{
    public string Name => "serial-pingpong";

    public string Description => "pairs of serial queues passing one message back and forth: every message a turn of one item (SlimPool groups; a hand-written mailbox on the built-in pool)";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int messages = context.Size(quick: 100_000, standard: 400_000, full: 10_000_000);
        int[] pairCounts = context.Mode == BenchMode.Quick ? [1] : [1, 4 * context.Cores];
        return [.. pairCounts.Distinct().Select(pairs => new Case(
            string.Create(CultureInfo.InvariantCulture, $"pairs-{pairs}"),
            string.Create(CultureInfo.InvariantCulture, $"{pairs} pair{(pairs == 1 ? "" : "s")} of serial queues, one message in flight each, {messages / pairs * pairs:N0} messages"),
            pairs,
            messages / pairs)
        {
            Parameter = pairs,
            Extended = pairs != 1,
        })];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            var countdown = new StripedCountdown(c.Pairs, c.Pairs);
            var queues = new ISerialQueue[2 * c.Pairs];
            var openers = new Player[c.Pairs];
            for (int p = 0; p < c.Pairs; p++)
            {
                queues[2 * p] = pool.CreateSerialQueue();
                queues[(2 * p) + 1] = pool.CreateSerialQueue();
                var rally = new Rally(c.MessagesPerPair, countdown, p);
                var ping = new Player(rally, queues[(2 * p) + 1]);
                var pong = new Player(rally, queues[2 * p]);
                ping.Peer = pong;
                pong.Peer = ping;
                openers[p] = ping;
            }

            try
            {
                long start = Stopwatch.GetTimestamp();
                for (int p = 0; p < c.Pairs; p++)
                {
                    queues[2 * p].Post(openers[p]);
                }

                countdown.Wait("serial-pingpong");
                double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                return new Measurement(
                [
                    new("wall", "ms", ms),
                    new("per message", "ns", ms * 1e6 / ((long)c.MessagesPerPair * c.Pairs), "0.0"),
                ]);
            }
            finally
            {
                foreach (ISerialQueue queue in queues)
                {
                    queue.Dispose();
                }
            }
        });
    }

    private sealed record Case(string Key, string Label, int Pairs, int MessagesPerPair) : BenchCase(Key, Label);

    // A pair's count of messages left: one message is in flight, so one thread at a time writes it, and each hand-off
    // through a serial queue orders one write before the next.
    private sealed class Rally(int messages, StripedCountdown countdown, int stripe)
    {
        private int _left = messages;

        // Counts a message received; true while the rally goes on.
        public bool Receive()
        {
            if (--_left > 0)
            {
                return true;
            }

            countdown.Signal(stripe);
            return false;
        }
    }

    // One side of a pair: runs on its own serial queue and answers into the other side's (outbox).
    private sealed class Player(Rally rally, ISerialQueue outbox) : BenchWorkItem
    {
        public Player? Peer { get; set; }

        public override void Execute()
        {
            if (rally.Receive())
            {
                outbox.PostFromPool(Peer!);
            }
        }
    }
}

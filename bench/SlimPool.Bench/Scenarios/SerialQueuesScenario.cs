using System.Diagnostics;
using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Serial queues (actor mailboxes, per-connection pipelines) on a pool: one outside producer posts items of 0.1 µs
/// round robin to 1 or 64 queues, at most 10,000 outstanding. SlimPool runs each queue as a group of one
/// (<see cref="SlimThreadPool.CreateGroup"/>); the built-in pool runs the mailbox a .NET engineer writes by hand on
/// its fastest API (<see cref="MailboxSerialQueue{TPool}"/>: a <c>ConcurrentQueue</c>, a scheduled flag, turns of 32
/// items, as a group's turns). One queue measures the serial hand-off; 64 spread over every core.
/// </summary>
internal sealed class SerialQueuesScenario : IScenario
{
    private const int OutstandingCap = TinyWorkScenario.OutstandingCap;
    private const int CapCheckInterval = 64;
    private const double WorkNanoseconds = 100;

    public string Name => "serial-queues";

    public string Description => "items of 0.1 µs posted from outside round robin to 1 or 64 serial queues (SlimPool groups; a hand-written mailbox on the built-in pool)";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        long iterations = context.Iterations(WorkNanoseconds);
        int items = context.Size(quick: 100_000, standard: 300_000, full: 4_000_000);
        return
        [
            .. new[] { 1, 64 }.Select(queues => new Case(
                string.Create(CultureInfo.InvariantCulture, $"queues-{queues}"),
                string.Create(CultureInfo.InvariantCulture, $"{items:N0} items of {WorkNanoseconds:0} ns to {queues} serial queue{(queues == 1 ? "" : "s")}, at most {OutstandingCap:N0} outstanding"),
                queues,
                items,
                iterations)
            {
                Parameter = queues,
            }),
        ];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            // Item i goes to queue i mod Queues, and queue q signals stripe q: as many stripes as queues, so each stripe
            // is counted down by the items it was given (StripedCountdown gives stripe s the items i with i mod stripes = s).
            var countdown = new StripedCountdown(c.Items, c.Queues);
            var queues = new ISerialQueue[c.Queues];
            var items = new SerialItem[c.Queues];
            for (int q = 0; q < c.Queues; q++)
            {
                queues[q] = pool.CreateSerialQueue();
                items[q] = new SerialItem(countdown, q, c.Iterations);
            }

            try
            {
                long start = Stopwatch.GetTimestamp();
                for (int i = 0; i < c.Items; i++)
                {
                    if ((i % CapCheckInterval) == 0)
                    {
                        var spinner = default(SpinWait);
                        while (i - countdown.Completed >= OutstandingCap)
                        {
                            spinner.SpinOnce();
                        }
                    }

                    int q = i % c.Queues;
                    queues[q].Post(items[q]);
                }

                countdown.Wait("serial-queues");
                double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                return new Measurement(
                [
                    new("wall", "ms", ms),
                    new("per item", "ns", ms * 1e6 / c.Items, "0.0"),
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

    private sealed record Case(string Key, string Label, int Queues, int Items, long Iterations) : BenchCase(Key, Label);

    // One per queue, posted many times: its queue runs it once per post, never two at once, so its stripe is written
    // by one thread at a time.
    private sealed class SerialItem(StripedCountdown countdown, int stripe, long iterations) : BenchWorkItem
    {
        public override void Execute()
        {
            CpuWork.Run(iterations);
            countdown.Signal(stripe);
        }
    }
}

using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Async flows (4,000 by default, 10,000 with --full) × 100 awaits each: the event-driven style the seed pool was built for, where every
/// continuation is a tiny item. Half the awaits are <c>Task.Yield()</c>, half wait for a completion signalled by
/// another flow. The built-in pool runs each flow with <see cref="Task.Run(Func{Task})"/>; SlimPool with
/// <c>pool.Run</c> (its SynchronizationContext keeps every continuation on the pool).
/// </summary>
internal sealed class AsyncChainScenario : IScenario
{
    private const int Awaits = 100;

    public string Name => "async-chain";

    public string Description => "async flows × 100 awaits (Task.Yield and completions from other flows)";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int flows = context.Size(quick: 2_000, standard: 4_000, full: 10_000);
        return [new Case("yield-and-signal", $"{flows:N0} flows × {Awaits} awaits", flows)];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            double ms = RunOnce(pool, c.Flows);
            return new Measurement([new("wall", "ms", ms), new("per await", "ns", ms * 1e6 / (c.Flows * Awaits), "0")]);
        });
    }

    private static double RunOnce<TPool>(TPool pool, int flows)
        where TPool : struct, IBenchPool
    {
        // Flow i signals flow i+1 after each of its odd awaits, so half of each flow's awaits are completions
        // from another flow; the last flow's signals go to nobody.
        var signals = new AsyncSignal[flows + 1];
        for (int i = 0; i < signals.Length; i++)
        {
            signals[i] = new AsyncSignal();
        }

        long start = Stopwatch.GetTimestamp();
        var tasks = new Task[flows];
        for (int i = 0; i < flows; i++)
        {
            int me = i;
            tasks[i] = pool.Run(() => Flow(signals[me], signals[me + 1], me == 0));
        }

        if (!Task.WaitAll(tasks, TimeSpan.FromMinutes(5)))
        {
            throw new TimeoutException("async-chain did not finish within 5 minutes");
        }

        return Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    }

    private static async Task Flow(AsyncSignal mine, AsyncSignal next, bool first)
    {
        for (int i = 0; i < Awaits; i++)
        {
            if (i % 2 == 0)
            {
                await Task.Yield();
            }
            else
            {
                if (!first)
                {
                    await mine.Next();
                }

                next.Raise();
            }
        }
    }

    private sealed record Case(string Key, string Label, int Flows) : BenchCase(Key, Label);
}

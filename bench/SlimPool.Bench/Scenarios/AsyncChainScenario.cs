using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// 10,000 async flows × 100 awaits each: the procedural, event-driven style the seed pool was built for, where
/// every continuation is a tiny item. Half the awaits are <c>Task.Yield()</c>, half wait for a completion signalled
/// by another flow. SlimPool runs each flow with <see cref="SlimThreadPool.Run(Func{Task})"/> (its
/// SynchronizationContext keeps every continuation on the pool); the built-in pool runs them with
/// <see cref="Task.Run(Func{Task})"/>.
/// </summary>
internal sealed class AsyncChainScenario : IScenario
{
    private const int Awaits = 100;

    public string Name => "async-chain";

    public string Description => "10,000 async flows × 100 awaits (Task.Yield and completions from other flows)";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        int flows = context.Size(quick: 1_000, standard: 10_000, full: 10_000);
        string label = $"{flows:N0} flows × {Awaits} awaits";
        var rows = new List<PoolResult>();
        foreach (PoolDefinition definition in context.Pools)
        {
            List<double> wall = context.RepeatOn(definition, $"async-chain {label}", pool => RunOnce(pool, flows));
            rows.Add(new PoolResult(definition.Name,
            [
                new Metric("wall", "ms", wall),
                new Metric("awaits", "per s", [.. wall.Select(ms => flows * Awaits / (ms / 1e3))], "N0"),
            ]));
        }

        yield return new CaseResult(Name, label, rows, "SlimPool pools run flows with pool.Run (continuations stay on the pool); ThreadPool rows use Task.Run.");
    }

    private static double RunOnce(IThreadPool pool, int flows)
    {
        // Flow i signals flow i+1 after each of its odd awaits, so half of each flow's awaits are completions
        // from another flow; the last flow's signals go to nobody.
        var signals = new Signal[flows + 1];
        for (int i = 0; i < signals.Length; i++)
        {
            signals[i] = new Signal();
        }

        long start = Stopwatch.GetTimestamp();
        var tasks = new Task[flows];
        for (int i = 0; i < flows; i++)
        {
            int me = i;
            Func<Task> flow = () => Flow(signals[me], signals[me + 1], me == 0);
            tasks[i] = pool is SlimThreadPool slim ? slim.Run(flow) : Task.Run(flow);
        }

        if (!Task.WaitAll(tasks, TimeSpan.FromMinutes(5)))
        {
            throw new TimeoutException("async-chain did not finish within 5 minutes");
        }

        return ScenarioContext.Milliseconds(start);
    }

    private static async Task Flow(Signal mine, Signal next, bool first)
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

    /// <summary>A stream of completions: each Raise completes one awaited Next, in order; raises may come first.</summary>
    private sealed class Signal
    {
        private readonly Queue<TaskCompletionSource> _waiters = new();
        private int _pending;

        public Task Next()
        {
            lock (_waiters)
            {
                if (_pending > 0)
                {
                    _pending--;
                    return Task.CompletedTask;
                }

                var waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                _waiters.Enqueue(waiter);
                return waiter.Task;
            }
        }

        public void Raise()
        {
            TaskCompletionSource? waiter;
            lock (_waiters)
            {
                if (!_waiters.TryDequeue(out waiter))
                {
                    _pending++;
                    return;
                }
            }

            waiter.SetResult();
        }
    }
}

using System.Diagnostics;
using System.Globalization;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Serial queues at actor scale (issue 26: a group per grain, actor, entity or tenant): a million queues each created,
/// used once and disposed; the memory an idle queue keeps after it ran one item; and items posted round robin over
/// 100,000 queues, so that nearly every post finds its queue idle. SlimPool runs each queue as a group of one; the
/// built-in pool runs the hand-written mailbox of <see cref="MailboxSerialQueue{TPool}"/> (a <c>ConcurrentQueue</c> and a
/// scheduled flag, on <c>UnsafeQueueUserWorkItem</c>).
/// </summary>
internal sealed class GroupsScaleScenario : IScenario
{
    private const int OutstandingCap = TinyWorkScenario.OutstandingCap;
    private const int CapCheckInterval = 64;

    public string Name => "groups-scale";

    public string Description => "serial queues at actor scale: 100,000 (1,000,000 with --full) created, used once and disposed; bytes an idle queue keeps; items round robin over 100,000 queues (SlimPool groups; a hand-written mailbox on the built-in pool)";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int once = context.Size(quick: 20_000, standard: 100_000, full: 1_000_000);
        int idle = context.Size(quick: 20_000, standard: 100_000, full: 100_000);
        int active = context.Size(quick: 20_000, standard: 100_000, full: 100_000);
        int items = context.Size(quick: 200_000, standard: 400_000, full: 10_000_000);
        return
        [
            new Case(
                "create-use-dispose",
                string.Create(CultureInfo.InvariantCulture, $"{once:N0} serial queues created, one empty item each, all disposed"),
                Kind.CreateUseDispose,
                once,
                once),
            new Case(
                "idle-bytes",
                string.Create(CultureInfo.InvariantCulture, $"bytes each of {idle:N0} serial queues keeps once it ran one item (after a full GC; SlimPool's includes the bench's 24-byte wrapper)"),
                Kind.IdleBytes,
                idle,
                idle) { Extended = true },
            new Case(
                "active-100k",
                string.Create(CultureInfo.InvariantCulture, $"{items:N0} empty items round robin over {active:N0} serial queues, at most {OutstandingCap:N0} outstanding"),
                Kind.Active,
                active,
                items) { Extended = true },
        ];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() => c.Kind switch
        {
            Kind.CreateUseDispose => CreateUseDispose(pool, c.Queues),
            Kind.IdleBytes => IdleBytes(pool, c.Queues),
            _ => Active(pool, c.Queues, c.Items),
        });
    }

    private static Measurement CreateUseDispose<TPool>(TPool pool, int count)
        where TPool : struct, IBenchPool
    {
        var queues = new ISerialQueue[count];
        var countdown = new StripedCountdown(count);
        CountdownItem[] items = CountdownItem.ForEachStripe(countdown);
        long start = Stopwatch.GetTimestamp();
        for (int i = 0; i < count; i++)
        {
            ISerialQueue queue = pool.CreateSerialQueue();
            queues[i] = queue;
            queue.Post(items[i % items.Length]);
        }

        double created = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        countdown.Wait("groups-scale create-use-dispose");
        double ran = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        foreach (ISerialQueue queue in queues)
        {
            queue.Dispose();
        }

        double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        return new Measurement(
        [
            new("wall", "ms", ms),
            new("per queue", "ns", ms * 1e6 / count, "0"),
            new("create+post", "ms", created),
            new("dispose", "ms", ms - ran),
        ]);
    }

    private static Measurement IdleBytes<TPool>(TPool pool, int count)
        where TPool : struct, IBenchPool
    {
        // A first round grows what the pool itself keeps (its queue's rings hold as many items as were queued at once),
        // so that the measured round counts the queues alone.
        CreateUseDispose(pool, count);
        var queues = new ISerialQueue[count];
        var countdown = new StripedCountdown(count);
        CountdownItem[] items = CountdownItem.ForEachStripe(countdown);
        long before = GC.GetTotalMemory(forceFullCollection: true);
        for (int i = 0; i < count; i++)
        {
            queues[i] = pool.CreateSerialQueue();
            queues[i].Post(items[i % items.Length]);
        }

        countdown.Wait("groups-scale idle-bytes");
        Thread.Sleep(20); // the last turns end (and drop their queues) after their item signalled
        long after = GC.GetTotalMemory(forceFullCollection: true);
        foreach (ISerialQueue queue in queues)
        {
            queue.Dispose();
        }

        return new Measurement([new("per idle queue", "B", Math.Max(1, (after - before) / (double)count), "0")]);
    }

    private static Measurement Active<TPool>(TPool pool, int count, int total)
        where TPool : struct, IBenchPool
    {
        var queues = new ISerialQueue[count];
        for (int q = 0; q < count; q++)
        {
            queues[q] = pool.CreateSerialQueue();
        }

        var countdown = new StripedCountdown(total);
        CountdownItem[] items = CountdownItem.ForEachStripe(countdown);
        try
        {
            long start = Stopwatch.GetTimestamp();
            for (int i = 0; i < total; i++)
            {
                if ((i % CapCheckInterval) == 0)
                {
                    var spinner = default(SpinWait);
                    while (i - countdown.Completed >= OutstandingCap)
                    {
                        spinner.SpinOnce();
                    }
                }

                queues[i % count].Post(items[i % items.Length]);
            }

            countdown.Wait("groups-scale active");
            double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
            return new Measurement(
            [
                new("per item", "ns", ms * 1e6 / total, "0.0"),
                new("wall", "ms", ms),
                new("throughput", "M items/s", total / ms / 1e3, "0.00"),
            ]);
        }
        finally
        {
            foreach (ISerialQueue queue in queues)
            {
                queue.Dispose();
            }
        }
    }

    private enum Kind
    {
        CreateUseDispose,
        IdleBytes,
        Active,
    }

    private sealed record Case(string Key, string Label, Kind Kind, int Queues, int Items) : BenchCase(Key, Label);
}

using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Running;
using SlimPool.Bench.Work;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Recursive fork/join: a binary tree of items, each queueing its two children from inside the pool, down to
/// leaves of 1 µs of calibrated work; completion is counted at the leaves.
/// </summary>
internal sealed class FanOutScenario : IScenario
{
    private const int Lanes = StripedCountdown.DefaultStripes;

    public string Name => "fan-out";

    public string Description => "recursive fork/join from inside the pool: a binary tree of items down to 1 µs leaves";

    public IReadOnlyList<BenchCase> Cases(CaseContext context)
    {
        int depth = context.Size(quick: 15, standard: 16, full: 20);
        int leaves = 1 << depth;
        return [new Case("tree", $"depth {depth}: {leaves:N0} leaves of 1 µs, {(2 * leaves) - 1:N0} items", depth, context.Iterations(1000))];
    }

    public Measurement Measure<TPool>(BenchCase benchCase, TPool pool)
        where TPool : struct, IBenchPool
    {
        var c = (Case)benchCase;
        return Measurement.WarmUpThenMeasure(() =>
        {
            var countdown = new StripedCountdown(1L << c.Depth, Lanes);
            var tree = new Node<TPool>[c.Depth + 1][];
            for (int d = 0; d <= c.Depth; d++)
            {
                tree[d] = new Node<TPool>[Lanes];
                for (int lane = 0; lane < Lanes; lane++)
                {
                    tree[d][lane] = new Node<TPool>(pool, tree, countdown, d, lane, c.LeafIterations);
                }
            }

            long start = Stopwatch.GetTimestamp();
            pool.Queue(tree[c.Depth][0]);
            countdown.Wait("fan-out");
            return new Measurement([new("wall", "ms", Stopwatch.GetElapsedTime(start).TotalMilliseconds)]);
        });
    }

    private sealed record Case(string Key, string Label, int Depth, long LeafIterations) : BenchCase(Key, Label);

    /// <summary>
    /// The node at index j of its level stands for all nodes with j mod 64 = lane (they are interchangeable: the tree
    /// is counted at its leaves), so the scenario allocates nothing per item. Node j's children are 2j and 2j + 1,
    /// lanes 2·lane and 2·lane + 1 mod 64; leaf j signals stripe j mod 64, and each stripe gets 2^depth / 64 leaves.
    /// </summary>
    private sealed class Node<TPool>(TPool pool, Node<TPool>[][] tree, StripedCountdown countdown, int depth, int lane, long leafIterations) : BenchWorkItem
        where TPool : struct, IBenchPool
    {
        public override void Execute()
        {
            if (depth == 0)
            {
                CpuWork.Run(leafIterations);
                countdown.Signal(lane);
                return;
            }

            Node<TPool>[] children = tree[depth - 1];
            pool.QueueFromPool(children[(2 * lane) % Lanes]);
            pool.QueueFromPool(children[((2 * lane) + 1) % Lanes]);
        }
    }
}

using System.Diagnostics;
using SlimPool.Bench.Pools;
using SlimPool.Bench.Reporting;

namespace SlimPool.Bench.Scenarios;

/// <summary>
/// Recursive fork/join: a binary tree of items, each queueing its two children, down to leaves that spin
/// about 1 µs. Completion is counted at the leaves.
/// </summary>
internal sealed class FanOutScenario : IScenario
{
    private const int LeafTicks = 10; // 1 µs

    public string Name => "fan-out";

    public string Description => "recursive fork/join: a binary tree of items down to ~1 µs leaves";

    public IEnumerable<CaseResult> Run(ScenarioContext context)
    {
        int depth = context.Size(quick: 14, standard: 18, full: 20);
        int leaves = 1 << depth;
        string label = $"depth {depth}, {leaves:N0} leaves of 1 µs, {2 * leaves - 1:N0} items";
        var rows = new List<PoolResult>();
        foreach (PoolDefinition definition in context.Pools)
        {
            List<double> wall = context.RepeatOn(definition, $"fan-out {label}", pool => RunOnce(pool, depth, leaves));

            rows.Add(new PoolResult(definition.Name,
            [
                new Metric("wall", "ms", wall),
                new Metric("efficiency", "%", [.. wall.Select(ms => 100 * leaves * LeafTicks * 100e-9 / Environment.ProcessorCount / (ms / 1e3))]),
            ]));
        }

        yield return new CaseResult(Name, label, rows);
    }

    private static double RunOnce(IThreadPool pool, int depth, int leaves)
    {
        var tree = new Tree(pool, leaves);
        long start = Stopwatch.GetTimestamp();
        pool.Queue(Tree.Node, tree.At(depth));
        tree.Wait("fan-out");
        return ScenarioContext.Milliseconds(start);
    }

    private sealed class Tree : Completion
    {
        public static readonly Action<object?> Node = Visit;

        private readonly IThreadPool _pool;
        private readonly TreeNode[] _byDepth;

        public Tree(IThreadPool pool, int leaves)
            : base(leaves)
        {
            _pool = pool;
            _byDepth = new TreeNode[32];
            for (int d = 0; d < _byDepth.Length; d++)
            {
                _byDepth[d] = new TreeNode(this, d);
            }
        }

        // Nodes of one depth are interchangeable (the tree is counted at its leaves), so one object per depth
        // keeps the scenario free of allocations of its own.
        public TreeNode At(int depth) => _byDepth[depth];

        private static void Visit(object? state)
        {
            var node = (TreeNode)state!;
            if (node.Depth == 0)
            {
                FakeProcessorWork.Spin(LeafTicks);
                node.Tree.Signal();
                return;
            }

            TreeNode child = node.Tree.At(node.Depth - 1);
            node.Tree._pool.Queue(Node, child);
            node.Tree._pool.Queue(Node, child);
        }
    }

    private sealed record TreeNode(Tree Tree, int Depth);
}

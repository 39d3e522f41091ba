using System.Text;

namespace SlimPool.Tests.Composition;

/// <summary>
/// A generated program over the public API: a pool, its groups, one or two producer threads each running a script, and
/// a controller thread that may shut the pool or a group down after a delay. <see cref="ToString"/> prints it as C#.
/// </summary>
internal sealed record ComposeProgram(PoolSpec Pool, GroupSpec[] Groups, ScriptOp[][] Producers, int ControllerDelayMs, ShutdownSpec? ControllerShutdown)
{
    public static string ProducerName(int producer) => $"P{producer + 1}";

    /// <summary>The name of the item a script queues at <paramref name="op"/>, as the checks' messages use it.</summary>
    public static string Label(int producer, int op) => $"{ProducerName(producer)}.{op}";

    public int ItemCount => Producers.Sum(script => script.Count(op => op.Item is not null));

    public override string ToString()
    {
        var text = new StringBuilder();
        text.AppendLine();
        text.AppendLine("// Item(label, ...) is the test's record of an item; Compute spins, Block sleeps, BlockInRunBlocking sleeps inside");
        text.AppendLine("// pool.RunBlocking, Throw throws, Chain queues its next step from inside the pool (a group's chain into the next group, g + 1 of n), AsyncSteps awaits Task.Yield() and");
        text.AppendLine("// its target's SwitchTo(alwaysYield: true) in turn between steps (a pool without its context: Task.Yield() only; a refused switch ends the flow), SendTo calls Send on a SynchronizationContext with a callback that is an Item of its own. Local is an AsyncLocal<string> each item reads. RunAndTakeBack waits and runs what came back.");
        if (Pool.ThreadHooks)
        {
            text.AppendLine("// hooks: OnStart sets HookLocal (an AsyncLocal<string>) to the pool's name, and on a spare sleeps 1 ms inside pool.EnterBlocking(); OnExit sleeps 1 ms inside pool.EnterBlocking().");
        }

        text.AppendLine($"using var pool = new SlimThreadPool({Pool});");
        for (int g = 0; g < Groups.Length; g++)
        {
            text.AppendLine($"var g{g} = {Groups[g]};");
        }

        for (int p = 0; p < Producers.Length; p++)
        {
            text.AppendLine($"var {ProducerName(p)} = new Thread(() =>");
            text.AppendLine("{");
            text.AppendLine($"    Local.Value = \"{ProducerName(p)}\";");
            for (int op = 0; op < Producers[p].Length; op++)
            {
                text.AppendLine($"    {Producers[p][op].ToCSharp(Label(p, op))}");
            }

            text.AppendLine("});");
        }

        if (ControllerShutdown is { } shutdown)
        {
            text.AppendLine("var controller = new Thread(() =>");
            text.AppendLine("{");
            text.AppendLine($"    Thread.Sleep({ControllerDelayMs});");
            text.AppendLine($"    {shutdown.ToCSharp()}");
            text.AppendLine("});");
        }

        text.AppendLine("// every thread starts at once; then: await pool.WaitForIdleAsync(); RunAndTakeBack(pool.ShutdownAsync(ShutdownMode.Drain)); the checks.");
        return text.ToString();
    }
}

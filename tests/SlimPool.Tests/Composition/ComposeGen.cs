using CsCheck;

namespace SlimPool.Tests.Composition;

/// <summary>
/// CsCheck generators of <see cref="ComposeProgram"/>s within a <see cref="ComposeScope"/>. Values are drawn
/// independently and made consistent afterwards (an item for a group that does not exist goes to the pool), so
/// CsCheck's shrinking can shorten scripts, drop groups and lower every number on its own.
/// </summary>
internal static class ComposeGen
{
    private static readonly int[] s_bounds = [2, 4, 16];
    private static readonly int[] s_quanta = [1, 2, 4, 32];

    // A group's time quantum in µs: the default, one that a few computing items spend (a turn's clock from its second
    // item, TurnQuantum), none.
    private static readonly int[] s_turnMicroseconds = [1_000, 30, -1];
    private static readonly WorkItemPriority[] s_priorities = [WorkItemPriority.Normal, WorkItemPriority.High, WorkItemPriority.Low];

    public static Gen<ComposeProgram> Program(ComposeScope scope) =>
        Gen.Select(
            Pool(scope),
            Group(scope).Array[0, scope.MaxGroups],
            Script(scope).Array[1, scope.MaxProducers],
            Gen.Int[0, 20],
            Shutdown(scope),
            Gen.Int[0, 3],
            (pool, groups, producers, delay, shutdown, controller) => Normalize(
                new ComposeProgram(pool, groups, producers, delay, scope.ControllerShutdown && controller > 0 ? shutdown : null)));

    private static Gen<PoolSpec> Pool(ComposeScope scope) =>
        Gen.Select(
            Gen.OneOf(scope.Queues),
            Gen.OneOf(scope.IdleWaits),
            Gen.Int[scope.MinWorkers, scope.MaxWorkers],
            Gen.Int[0, 5],
            Gen.OneOf(scope.Flow),
            Gen.Int[0, 3],
            Gen.OneOf(scope.ThreadHooks),
            Gen.Select(Gen.OneOf(scope.ShortSpareIdle), Gen.OneOf(scope.ShortStarvation), Gen.Int[0, 3], static (spares, guard, context) => (spares, guard, context)),
            (queue, idleWait, workers, bound, flow, watch, hooks, more) =>
                new PoolSpec(
                    queue,
                    idleWait,
                    workers,
                    scope.Bounded && bound >= 3 ? s_bounds[bound - 3] : null,
                    flow,
                    FlightRecorder: watch == 3,
                    hooks,
                    more.spares,
                    more.guard,
                    NoSynchronizationContext: more.context == 3));

    private static Gen<GroupSpec> Group(ComposeScope scope) =>
        Gen.Select(
            Gen.Int[1, scope.MaxConcurrency],
            Gen.OneOf(s_quanta),
            Gen.OneOf(s_turnMicroseconds),
            Gen.Int[0, 2],
            (limit, quantum, micros, priority) => new GroupSpec(limit, quantum, micros, scope.Priorities ? s_priorities[priority] : WorkItemPriority.Normal));

    private static Gen<ScriptOp[]> Script(ComposeScope scope)
    {
        Gen<ScriptOp> item = Item(scope).Select(ScriptOp.Queue);
        Gen<ScriptOp> pause = Gen.Int[0, 3].Select(ScriptOp.Pause);
        // A wait for idleness: the pool (−1) or a group (Normalize sends one for a missing group to the pool).
        Gen<ScriptOp> idle = Gen.Int[-1, 2].Select(ScriptOp.WaitForIdle);
        Gen<ScriptOp> op = (scope.ProducerShutdowns, scope.WaitsForIdle) switch
        {
            (true, true) => Gen.Frequency((12, item), (2, pause), (1, Shutdown(scope).Select(ScriptOp.ShutDown)), (1, idle)),
            (true, false) => Gen.Frequency((12, item), (2, pause), (1, Shutdown(scope).Select(ScriptOp.ShutDown))),
            (false, true) => Gen.Frequency((12, item), (2, pause), (1, idle)),
            (false, false) => Gen.Frequency((12, item), (2, pause)),
        };

        // A run of items for one target (the pool or a group) queued in one QueueBatch (or TryQueueBatch) call; Normalize
        // turns a kind that cannot be batched (a cancelled or async item) back into a single Queue, which ends the run.
        Gen<ScriptOp[]> batch = Gen.Select(Item(scope).Array[2, 6], Gen.Bool, (items, tryIt) => items
            .Select(i => ScriptOp.Queue(i with
            {
                Group = items[0].Group,
                Priority = WorkItemPriority.Normal,
                Shape = tryIt ? QueueShape.TryBatch : QueueShape.Batch,
                SuppressFlow = items[0].SuppressFlow,
            }))
            .ToArray());
        return Gen.Frequency((8, op.Select(static o => new[] { o })), (1, batch))
            .Array[1, scope.MaxOps]
            .Select(chunks => chunks.SelectMany(static c => c).Take(scope.MaxOps).ToArray());
    }

    private static Gen<ItemSpec> Item(ComposeScope scope) =>
        Gen.Select(
            Gen.Int[0, 3],
            Gen.Int[0, 2],
            Gen.OneOf(scope.Kinds),
            Gen.Int[0, 2],
            Gen.Enum<QueueShape>(),
            Gen.Int[0, 5],
            Gen.Int[1, 5],
            Gen.Int[0, 19],
            (toGroup, group, kind, priority, shape, suppress, amount, longChain) =>
            {
                int amountOfKind = kind switch
                {
                    ItemKind.Compute or ItemKind.Cancelled or ItemKind.CancelledWhileQueued or ItemKind.Continuation or ItemKind.Interrupt => amount * 10,
                    ItemKind.Chain => scope.LongChains && longChain == 19 ? amount * 4_000 : 2 + (amount * 8),
                    ItemKind.Async => 1 + (amount % 3),
                    _ => amount,
                };
                return new ItemSpec(
                    toGroup < scope.GroupShare ? group : -1,
                    kind,
                    scope.Priorities ? s_priorities[priority] : WorkItemPriority.Normal,
                    shape,
                    scope.SuppressFlow && suppress == 5,
                    amountOfKind);
            });

    private static Gen<ShutdownSpec> Shutdown(ComposeScope scope) =>
        Gen.Select(
            Gen.Int[0, 5],
            Gen.OneOf(scope.ShutdownKinds),
            Gen.Int[1, 10],
            Gen.OneOf(scope.ShutdownFroms),
            (target, kind, cancelAfter, from) => new ShutdownSpec(scope.GroupShutdowns && target >= 3 ? target - 3 : -1, kind, cancelAfter, from));

    /// <summary>Makes a program consistent: targets that exist, priorities only on the pool's plain items, batches and QueueAsync only of plain Normal items.</summary>
    private static ComposeProgram Normalize(ComposeProgram program)
    {
        int groups = program.Groups.Length;
        ItemSpec FixItem(ItemSpec item)
        {
            ItemKind kind = item.Kind;
            int group = item.Group < groups && kind != ItemKind.LongRunning ? item.Group : -1; // a long-running task is the pool's
            int amount = item.Amount;
            if (kind == ItemKind.Send)
            {
                // The pool or a group; a group's item sends only to the pool, its own group or a later one (no cycle of waits).
                int target = (item.Amount % (groups + 1)) - 1;
                amount = group >= 0 && target >= 0 && target < group ? 0 : target + 1;
            }

            bool prioritised = group < 0 && kind is not (ItemKind.Cancelled or ItemKind.CancelledWhileQueued or ItemKind.Async or ItemKind.Continuation or ItemKind.LongRunning);
            WorkItemPriority priority = prioritised ? item.Priority : WorkItemPriority.Normal;
            bool batchable = priority == WorkItemPriority.Normal && kind is not (ItemKind.Cancelled or ItemKind.CancelledWhileQueued or ItemKind.Async or ItemKind.Continuation or ItemKind.LongRunning);
            QueueShape shape = item.IsBatch && !batchable ? (item.IsTry ? QueueShape.TryQueue : QueueShape.Queue)
                : item.Shape == QueueShape.QueueAsync && !batchable ? QueueShape.Queue // QueueAsync has no priority or item token
                : item.Shape;
            return item with { Group = group, Kind = kind, Priority = priority, Shape = shape, Amount = amount };
        }

        ShutdownSpec FixShutdown(ShutdownSpec shutdown) => shutdown.Target < groups ? shutdown : shutdown with { Target = -1 };

        ScriptOp[][] producers = [.. program.Producers.Select(script => script.Select(op =>
            op.Item is { } item ? ScriptOp.Queue(FixItem(item))
            : op.Shutdown is { } shutdown ? ScriptOp.ShutDown(FixShutdown(shutdown))
            : op.IdleTarget is { } target ? ScriptOp.WaitForIdle(target < groups ? target : -1)
            : op).ToArray())];
        return program with
        {
            Producers = producers,
            ControllerShutdown = program.ControllerShutdown is { } controller ? FixShutdown(controller) : null,
        };
    }
}

using System.Collections.Concurrent;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Tests.Groups;

/// <summary>
/// Groups passing messages back and forth, each message a turn that the ending turn takes from its worker's slot with
/// work stealing (see <see cref="TurnHandOffTests"/>), beside a group's abandon, the pool's dispose, another pool's
/// groups, a flowing ExecutionContext and wider groups: each accepted message runs once, in its group, or comes back
/// once (from an adversarial review of the hand-off; they held).
/// </summary>
public sealed class TurnHandOffRallyTests
{
    public static TheoryData<WorkQueueKind, IdleWaitKind> Configurations() => TestPools.QueueAndIdleWaits();

    private static SlimThreadPool Create(WorkQueueKind queue, IdleWaitKind idleWait, int workers, Action<SlimThreadPoolOptions>? more = null, [System.Runtime.CompilerServices.CallerMemberName] string name = "") =>
        TestPools.Create(queue, idleWait, workers, more, name);

    // Several rallies between pairs of groups; each message has an id, counted when it runs.
    private sealed class Rallies
    {
        public readonly int[] Runs;
        public readonly ConcurrentQueue<string> Problems = new();
        private int _nextId;
        private readonly int _max;
        public volatile bool Stop;
        public int Accepted;
        public int Refused;
        public Action<SlimThreadPoolGroup>? OnMessage;
        public volatile bool RunningHandedBack;

        public Rallies(int max)
        {
            _max = max;
            Runs = new int[max + 64];
        }

        public void Send(SlimThreadPoolGroup to, SlimThreadPoolGroup back)
        {
            int id = Interlocked.Increment(ref _nextId);
            if (Stop || id >= _max)
            {
                return;
            }

            if (to.TryQueue(() => Receive(id, to, back)))
            {
                Interlocked.Increment(ref Accepted);
            }
            else
            {
                Interlocked.Increment(ref Refused);
            }
        }

        private void Receive(int id, SlimThreadPoolGroup self, SlimThreadPoolGroup other)
        {
            if (Interlocked.Increment(ref Runs[id]) != 1)
            {
                Problems.Enqueue($"message {id} ran twice");
            }

            if (!RunningHandedBack && SynchronizationContext.Current != self.SynchronizationContext)
            {
                Problems.Enqueue($"message {id} ran under another context: {SynchronizationContext.Current?.GetType().Name}");
            }

            OnMessage?.Invoke(self);
            Send(other, self);
        }

        public int Ran => Runs.Count(r => r > 0);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Rallies_GroupAbandonedMidway_EveryAcceptedMessageRunsOnceOrComesBack(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = Create(queue, idleWait, workers: 2);
        var groups = Enumerable.Range(0, 8).Select(_ => pool.CreateGroup()).ToArray();
        var rallies = new Rallies(400_000);
        for (int i = 0; i < 8; i += 2)
        {
            rallies.Send(groups[i], groups[i + 1]);
            rallies.Send(groups[i + 1], groups[i]);
        }

        Bounded.Until(() => rallies.Ran > 20_000, "the rallies to run");
        var abandoned = new List<AbandonedWorkItem>();
        for (int i = 0; i < 8; i += 3)
        {
            ShutdownResult result = Bounded.Result(groups[i].ShutdownAsync(ShutdownMode.Abandon), "the group's abandon");
            abandoned.AddRange(result.AbandonedItems);
        }

        rallies.Stop = true;
        Bounded.Wait(pool.WaitForIdleAsync(), "the pool to go idle");
        rallies.RunningHandedBack = true;
        foreach (AbandonedWorkItem item in abandoned)
        {
            item.Run();
        }

        Assert.Empty(rallies.Problems.Take(5));
        Assert.Equal(Volatile.Read(ref rallies.Accepted), rallies.Ran);
        foreach (SlimThreadPoolGroup group in groups)
        {
            group.Dispose();
        }
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Rallies_PoolDisposedFromOutside_NothingRunsAfterDisposeReturnsAndEveryAcceptedRan(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        SlimThreadPool pool = Create(queue, idleWait, workers: 2);
        var groups = Enumerable.Range(0, 4).Select(_ => pool.CreateGroup()).ToArray();
        var rallies = new Rallies(4_000_000);
        int afterReturn = 0;
        bool returned = false;
        rallies.OnMessage = _ =>
        {
            if (Volatile.Read(ref returned))
            {
                Interlocked.Increment(ref afterReturn);
            }
        };
        rallies.Send(groups[0], groups[1]);
        rallies.Send(groups[2], groups[3]);
        Bounded.Until(() => rallies.Ran > 20_000, "the rallies to run");
        Bounded.Run(pool.Dispose, "the pool's dispose");
        Volatile.Write(ref returned, true);
        Thread.Sleep(50);
        Assert.Empty(rallies.Problems);
        Assert.Equal(0, Volatile.Read(ref afterReturn));
        Assert.Equal(Volatile.Read(ref rallies.Accepted), rallies.Ran);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Rally_BetweenGroupsOfTwoPools_EachMessageRunsOnceOnItsOwnPool(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool a = Create(queue, idleWait, workers: 1, o => o.Name = "poolA");
        using SlimThreadPool b = Create(queue, idleWait, workers: 1, o => o.Name = "poolB");
        SlimThreadPoolGroup ga = a.CreateGroup();
        SlimThreadPoolGroup gb = b.CreateGroup();
        var rallies = new Rallies(20_000); // each message wakes the other pool's worker
        rallies.OnMessage = self =>
        {
            string expected = self == ga ? "poolA" : "poolB";
            if (Thread.CurrentThread.Name?.StartsWith(expected, StringComparison.Ordinal) != true)
            {
                rallies.Problems.Enqueue($"{expected}'s item ran on {Thread.CurrentThread.Name}");
            }
        };
        rallies.Send(ga, gb);
        Bounded.Until(() => rallies.Ran >= 19_000 || !rallies.Problems.IsEmpty, "the rally to run");
        rallies.Stop = true;
        Bounded.Wait(a.WaitForIdleAsync(), "a idle");
        Bounded.Wait(b.WaitForIdleAsync(), "b idle");
        Assert.Empty(rallies.Problems.Take(5));
        Assert.Equal(Volatile.Read(ref rallies.Accepted), rallies.Ran);
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Rally_FlowExecutionContext_EachMessageSeesItsSendersValueAndNoOther(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        foreach (bool flow in new[] { true, false })
        {
            using SlimThreadPool pool = Create(queue, idleWait, workers: 1, o => o.FlowExecutionContext = flow);
            SlimThreadPoolGroup ping = pool.CreateGroup();
            SlimThreadPoolGroup pong = pool.CreateGroup();
            var local = new AsyncLocal<int>();
            var problems = new ConcurrentQueue<string>();
            using var done = new ManualResetEventSlim();
            void Receive(int message, SlimThreadPoolGroup self, SlimThreadPoolGroup other)
            {
                int seen = local.Value;
                int expected = flow ? message - 1 : 0;
                if (seen != expected && problems.Count < 5)
                {
                    problems.Enqueue($"flow {flow}: message {message} saw {seen}, expected {expected}");
                }

                local.Value = message; // flows with the next message (flow on), or must not leak to it (flow off)
                if (message == 50_000)
                {
                    done.Set();
                    return;
                }

                other.Queue(() => Receive(message + 1, other, self));
            }

            ping.Queue(() => Receive(1, ping, pong)); // the first message's sender set nothing... except flow on: 0
            Bounded.Wait(done, "the rally");
            Assert.Empty(problems);
        }
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public void Rally_WideGroups_NeverMoreThanTheirLimitAndEachOnce(WorkQueueKind queue, IdleWaitKind idleWait)
    {
        using SlimThreadPool pool = Create(queue, idleWait, workers: 2);
        var limit = new SlimGroupOptions { MaxConcurrency = 2, MaxItemsPerTurn = 3 };
        SlimThreadPoolGroup ping = pool.CreateGroup(limit);
        SlimThreadPoolGroup pong = pool.CreateGroup(limit);
        var running = new ConcurrentDictionary<SlimThreadPoolGroup, int>();
        running[ping] = 0;
        running[pong] = 0;
        var rallies = new Rallies(300_000);
        rallies.OnMessage = self =>
        {
            int now = running.AddOrUpdate(self, 1, (_, v) => v + 1);
            if (now > 2)
            {
                rallies.Problems.Enqueue($"{now} running at once");
            }

            Thread.SpinWait(20);
            running.AddOrUpdate(self, 0, (_, v) => v - 1);
        };
        for (int i = 0; i < 6; i++)
        {
            rallies.Send(ping, pong);
            rallies.Send(pong, ping);
        }

        Bounded.Until(() => rallies.Ran >= 299_000 || !rallies.Problems.IsEmpty, "the rallies");
        rallies.Stop = true;
        Bounded.Wait(pool.WaitForIdleAsync(), "idle");
        Assert.Empty(rallies.Problems.Take(5));
        Assert.Equal(Volatile.Read(ref rallies.Accepted), rallies.Ran);
    }
}

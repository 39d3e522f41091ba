using System.Diagnostics;
using Akka.Actor;
using Akka.Cluster;
using Akka.Routing;
using SlimPool.Akka.Tests.Infrastructure;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.Akka.Tests.Cluster;

/// <summary>
/// Two Akka.Cluster nodes in this process on loopback, both with their default dispatcher on SlimPool: they form a
/// cluster, share work through a cluster-aware router, survive one node leaving and a new one joining in its place,
/// and leave no SlimPool thread behind.
/// </summary>
public sealed class TwoNodeClusterTests
{
    private const int MessagesPerRound = 2_000;
    private static readonly TimeSpan s_askTimeout = TimeSpan.FromSeconds(20);

    [Fact]
    public void Cluster_TwoSlimPoolNodesLeaveAndRejoin_RouterReachesBothAndNoPoolThreadOutlivesItsNode()
    {
        Assert.True(OsThreads.CanList, "This test reads /proc/self/task (Linux).");
        var stopwatch = Stopwatch.StartNew();
        ClusterNode first = ClusterNode.Start("first");
        ClusterNode second = ClusterNode.Start("second");
        ClusterNode? third = null;
        try
        {
            first.Join(first);
            second.Join(first);
            WaitForUpMembers(2, first, second);
            IActorRef router = first.System.ActorOf(Props.Empty.WithRouter(FromConfig.Instance), "router");
            WaitForRoutees(router, 2);

            AssertRoundReachesBoth(router, "first", "second");

            // The second node leaves gracefully; its actor system terminates and its pool's threads end.
            second.Cluster.Leave(second.Cluster.SelfAddress);
            Bounded.Wait(second.System.WhenTerminated, "the leaving node's actor system to terminate");
            WaitForUpMembers(1, first);
            Bounded.Until(() => OsThreads.CountNamed(second.ThreadNamePrefix) == 0, "the leaving node's SlimPool threads have exited");

            // A new node joins in its place and gets work through the same router.
            third = ClusterNode.Start("third");
            third.Join(first);
            WaitForUpMembers(2, first, third);
            WaitForRoutees(router, 2);
            AssertRoundReachesBoth(router, "first", "third");
        }
        finally
        {
            AkkaSystems.Terminate(first.System);
            AkkaSystems.Terminate(second.System);
            if (third is not null)
            {
                AkkaSystems.Terminate(third.System);
            }
        }

        Bounded.Until(
            () => OsThreads.CountNamed(first.ThreadNamePrefix) + (third is null ? 0 : OsThreads.CountNamed(third.ThreadNamePrefix)) == 0,
            "every node's SlimPool threads have exited");
        Assert.True(stopwatch.Elapsed < TimeSpan.FromSeconds(30), $"The cluster test took {stopwatch.Elapsed.TotalSeconds:F1} s (budget 30 s).");
    }

    private static void AssertRoundReachesBoth(IActorRef router, string one, string other)
    {
        Task<NodeNameActor.Answer>[] asks = [.. Enumerable.Range(0, MessagesPerRound).Select(i => router.Ask<NodeNameActor.Answer>(i, s_askTimeout))];
        NodeNameActor.Answer[] answers = Bounded.Result(Task.WhenAll(asks), $"{MessagesPerRound} answers through the router");

        Dictionary<string, int> perNode = answers.GroupBy(answer => answer.Node).ToDictionary(group => group.Key, group => group.Count());
        Assert.Equal([one, other], perNode.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(MessagesPerRound / 2, perNode[one]); // round robin over two routees
        Assert.All(answers, answer => Assert.True(answer.OnSlimPool));
    }

    private static void WaitForUpMembers(int count, params ClusterNode[] observers)
    {
        foreach (ClusterNode node in observers)
        {
            Bounded.Until(
                () => node.Cluster.State.Members.Count(member => member.Status == MemberStatus.Up) == count && node.Cluster.State.Members.Count == count,
                $"{node.Name} sees {count} members up");
        }
    }

    private static void WaitForRoutees(IActorRef router, int count) =>
        Bounded.Until(
            () => Bounded.Result(router.Ask<Routees>(GetRoutees.Instance, s_askTimeout), "the router's routees").Members.Count() == count,
            $"the router has {count} routees");
}

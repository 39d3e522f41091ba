using Proto.Cluster;
using Proto.Cluster.Seed;
using SlimPool.ProtoActor.Tests.Infrastructure;
using SlimPool.ProtoActor.Tests.Remote;
using SlimPool.Tests.Infrastructure;

namespace SlimPool.ProtoActor.Tests.Cluster;

/// <summary>
/// Two Proto.Cluster members on 127.0.0.1, joined through the seed-node provider that Proto.Cluster 1.8 carries
/// (Proto.Cluster.TestProvider is not served here), each activating its virtual actors on its own SlimPool.
/// </summary>
public sealed class TwoMemberClusterTests
{
    [Fact]
    public void RequestAsync_ManyIdentitiesFromEitherMember_ActivatedOnBothMembersPools()
    {
        const int Identities = 40;
        string clusterName = "c" + ProtoSystems.UniqueName();
        using ClusterNode seed = ClusterNode.Start(clusterName, FixedServerSeedNode.StartSeedNode());
        using ClusterNode member = ClusterNode.Start(clusterName, FixedServerSeedNode.JoinSeedNode("127.0.0.1", seed.Port));
        Bounded.Until(() => seed.System.Cluster().MemberList.GetAllMembers().Length == 2 && member.System.Cluster().MemberList.GetAllMembers().Length == 2, "both members see each other");

        Reply[] fromSeed = [.. Enumerable.Range(0, Identities).Select(i => Request(seed, $"id{i}"))];
        Reply[] fromMember = [.. Enumerable.Range(0, Identities).Select(i => Request(member, $"id{i}"))];

        Assert.All(fromSeed, r => Assert.True(r.OnPool, $"{r.Text} ran off {r.Pool}'s pool"));
        string[] pools = [.. fromSeed.Select(r => r.Pool).Distinct().Order(StringComparer.Ordinal)];
        Assert.Equal([.. new[] { member.Name, seed.Name }.Order(StringComparer.Ordinal)], pools); // 40 identities: both members get some
        Assert.Equal(fromSeed.Select(r => r.Pool), fromMember.Select(r => r.Pool)); // one activation per identity, whoever asks
    }

    private static Reply Request(ClusterNode from, string identity)
    {
        using var timeout = new CancellationTokenSource(ProtoSystems.RequestTimeout);
        return Bounded.Result(from.System.Cluster().RequestAsync<Reply>(identity, ClusterNode.Kind, new Greeting(identity), timeout.Token), $"{identity} to answer");
    }
}

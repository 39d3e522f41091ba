using System.Reflection;

namespace SlimPool.Tests.Api;

/// <summary>
/// The public API of each package, compared with its checked-in baseline (src/{project}/PublicAPI.txt). A change
/// fails here with the lines added and removed; <see cref="PublicApiBaseline.AcceptCommand"/> accepts it.
/// </summary>
public sealed class PublicApiTests
{
    private static readonly Dictionary<string, Assembly> s_packages = new(StringComparer.Ordinal)
    {
        ["SlimPool"] = typeof(SlimThreadPool).Assembly,
        ["SlimPool.Extensions.DependencyInjection"] = typeof(Microsoft.Extensions.DependencyInjection.SlimThreadPoolServiceCollectionExtensions).Assembly,
        ["SlimPool.Akka"] = typeof(SlimPool.Akka.SlimPoolExecutorServiceConfigurator).Assembly,
        ["SlimPool.Reactive"] = typeof(SlimPool.Reactive.SlimPoolScheduler).Assembly,
        ["SlimPool.ProtoActor"] = typeof(SlimPool.ProtoActor.SlimPoolDispatcher).Assembly,
    };

    public static TheoryData<string> Packages => new(s_packages.Keys.Order(StringComparer.Ordinal));

    [Theory]
    [MemberData(nameof(Packages))]
    public void PublicApi_ComparedWithBaseline_IsUnchanged(string project)
    {
        Assembly assembly = s_packages[project];
        IReadOnlyList<string> current = PublicApiListing.ForAssembly(assembly);
        string relative = PublicApiBaseline.RelativePath(project);
        string path = Path.Combine(PublicApiBaseline.FindRepositoryRoot(AppContext.BaseDirectory), relative);

        if (PublicApiBaseline.AcceptRequested)
        {
            PublicApiBaseline.Write(path, current);
            return;
        }

        string? diff = PublicApiBaseline.Diff(assembly.GetName().Name!, relative, PublicApiBaseline.Read(path), current);
        Assert.True(diff is null, diff);
    }

    [Fact]
    public void FindRepositoryRoot_FromTestOutput_FindsTheSolutionFolder()
    {
        string root = PublicApiBaseline.FindRepositoryRoot(AppContext.BaseDirectory);

        Assert.True(File.Exists(Path.Combine(root, "SlimPool.slnx")));
        Assert.True(Directory.Exists(Path.Combine(root, "src", "SlimPool")));
    }

    [Fact]
    public void FindRepositoryRoot_NoSolutionAbove_ThrowsNamingTheStart()
    {
        string start = Path.GetPathRoot(AppContext.BaseDirectory)!;

        var exception = Assert.Throws<InvalidOperationException>(() => PublicApiBaseline.FindRepositoryRoot(start));
        Assert.Contains(start, exception.Message, StringComparison.Ordinal);
    }
}

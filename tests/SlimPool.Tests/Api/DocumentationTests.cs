using System.Reflection;
using System.Text.RegularExpressions;

namespace SlimPool.Tests.Api;

/// <summary>
/// The README is the NuGet package's page and the guide is its manual: these keep them true to the code. NuGet shows
/// no relative link or image, so the README links only to absolute addresses; every settable option of
/// <see cref="SlimThreadPoolOptions"/> and <see cref="SlimGroupOptions"/> has its row in the guide.
/// </summary>
public sealed partial class DocumentationTests
{
    private const int ReadmeMaxLines = 250;

    private static readonly string s_root = PublicApiBaseline.FindRepositoryRoot(AppContext.BaseDirectory);

    [Fact]
    public void Readme_AsThePackagesPage_HasAtMost250Lines()
    {
        int lines = File.ReadAllLines(Path.Combine(s_root, "README.md")).Length;

        Assert.True(lines <= ReadmeMaxLines, $"README.md has {lines} lines; at most {ReadmeMaxLines} (the guide is docs/guide.md).");
    }

    [Fact]
    public void Readme_LinksAndImages_AreAbsoluteForNuGet()
    {
        string readme = File.ReadAllText(Path.Combine(s_root, "README.md"));

        string[] relative = [.. MarkdownLink().Matches(readme).Select(m => m.Groups["target"].Value)
            .Where(target => !target.StartsWith("https://", StringComparison.Ordinal) && !target.StartsWith('#'))];

        Assert.True(relative.Length == 0, $"README.md links that NuGet cannot follow: {string.Join(", ", relative)}");
    }

    [Fact]
    public void Readme_InstallLineAndTheTwoCommands_ArePresent()
    {
        string readme = File.ReadAllText(Path.Combine(s_root, "README.md"));

        Assert.Contains("dotnet add package SlimPool", readme, StringComparison.Ordinal);
        Assert.Contains("dotnet run -c Release --project bench/SlimPool.Bench", readme, StringComparison.Ordinal);
        Assert.Contains("dotnet test", readme, StringComparison.Ordinal);
        Assert.Contains("dotnet test", File.ReadAllText(Path.Combine(s_root, ".ci", "run")), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(typeof(SlimThreadPoolOptions))]
    [InlineData(typeof(SlimGroupOptions))]
    public void Guide_OptionsTables_NameEverySettableOption(Type options)
    {
        string guide = File.ReadAllText(Path.Combine(s_root, "docs", "guide.md"));

        string[] missing = [.. options.GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Where(p => p.SetMethod is { IsPublic: true })
            .Select(p => p.Name)
            .Where(name => !guide.Contains($"| `{name}`", StringComparison.Ordinal) && !guide.Contains($"/ `{name}`", StringComparison.Ordinal))];

        Assert.True(missing.Length == 0, $"docs/guide.md has no options-table row for {options.Name}.{string.Join(", ", missing)}");
    }

    [Fact]
    public void Readme_ScenarioTable_NamesEveryScenarioOfTheComparisonProgram()
    {
        string readme = File.ReadAllText(Path.Combine(s_root, "README.md"));
        string scenarios = Path.Combine(s_root, "bench", "SlimPool.Bench", "Scenarios");

        string[] names = [.. Directory.EnumerateFiles(scenarios, "*Scenario.cs")
            .Select(File.ReadAllText)
            .Select(text => ScenarioName().Match(text))
            .Where(m => m.Success)
            .Select(m => m.Groups["name"].Value)];

        Assert.NotEmpty(names);
        string[] missing = [.. names.Where(name => !readme.Contains($"| `{name}` |", StringComparison.Ordinal))];
        Assert.True(missing.Length == 0, $"README.md's scenario table misses: {string.Join(", ", missing)}");
    }

    [GeneratedRegex(@"\]\((?<target>[^)\s]+)\)")]
    private static partial Regex MarkdownLink();

    [GeneratedRegex(@"public string Name => ""(?<name>[a-z0-9-]+)"";")]
    private static partial Regex ScenarioName();
}

using System.Text;

namespace SlimPool.Tests.Api;

/// <summary>
/// The checked-in public API baselines (<c>src/{project}/PublicAPI.txt</c>): where they are, how a listing
/// differs from one, and how to accept a change.
/// </summary>
internal static class PublicApiBaseline
{
    /// <summary>Set to 1, the baseline tests rewrite the baselines instead of comparing.</summary>
    public const string AcceptVariable = "SLIMPOOL_ACCEPT_API";

    /// <summary>The command that accepts the current public API as the new baseline.</summary>
    public const string AcceptCommand = AcceptVariable + "=1 dotnet test tests/SlimPool.Tests --filter FullyQualifiedName~PublicApi";

    /// <summary>Whether this run rewrites the baselines.</summary>
    public static bool AcceptRequested => Environment.GetEnvironmentVariable(AcceptVariable) == "1";

    /// <summary>The baseline file of the project in <c>src/{project}</c>, from the repository root.</summary>
    public static string RelativePath(string project) => $"src/{project}/PublicAPI.txt";

    /// <summary>The repository root: the first folder above the test output that holds SlimPool.slnx.</summary>
    public static string FindRepositoryRoot(string start)
    {
        for (DirectoryInfo? folder = new(start); folder is not null; folder = folder.Parent)
        {
            if (File.Exists(Path.Combine(folder.FullName, "SlimPool.slnx")))
            {
                return folder.FullName;
            }
        }

        throw new InvalidOperationException($"No folder above '{start}' holds SlimPool.slnx: cannot find the repository root.");
    }

    /// <summary>The lines of a baseline file (line endings normalized, no trailing empty line); empty if the file is missing.</summary>
    public static IReadOnlyList<string> Read(string path) =>
        File.Exists(path)
            ? File.ReadAllText(path).Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n').Where(line => line.Length > 0).ToArray()
            : [];

    /// <summary>Writes <paramref name="lines"/> as a baseline file (LF line endings, UTF-8 without BOM).</summary>
    public static void Write(string path, IReadOnlyList<string> lines) =>
        File.WriteAllText(path, PublicApiListing.ToText(lines), new UTF8Encoding(encoderShouldEmitUTF8Identifier: false));

    /// <summary>
    /// Describes how <paramref name="current"/> differs from <paramref name="baseline"/>: the lines added (<c>+</c>)
    /// and removed (<c>-</c>), and how to accept the change; <see langword="null"/> when they are the same.
    /// </summary>
    public static string? Diff(string what, string baselinePath, IReadOnlyList<string> baseline, IReadOnlyList<string> current)
    {
        if (baseline.SequenceEqual(current, StringComparer.Ordinal))
        {
            return null;
        }

        var baselineSet = new HashSet<string>(baseline, StringComparer.Ordinal);
        var currentSet = new HashSet<string>(current, StringComparer.Ordinal);
        List<string> added = current.Where(line => !baselineSet.Contains(line)).ToList();
        List<string> removed = baseline.Where(line => !currentSet.Contains(line)).ToList();

        var message = new StringBuilder();
        message.Append("The public API of ").Append(what).Append(" differs from its baseline ").Append(baselinePath);
        if (baseline.Count == 0)
        {
            message.Append(" (missing or empty)");
        }

        message.Append(":\n");
        if (added.Count == 0 && removed.Count == 0)
        {
            message.Append("  the same lines in another order, or repeated (was the baseline edited by hand?)\n");
        }

        message.Append("Lines added (").Append(added.Count).Append("):\n");
        foreach (string line in added)
        {
            message.Append("  + ").Append(line).Append('\n');
        }

        message.Append("Lines removed (").Append(removed.Count).Append("):\n");
        foreach (string line in removed)
        {
            message.Append("  - ").Append(line).Append('\n');
        }

        message.Append("If the change is intended (a removed or changed line breaks callers), accept it from the repository root with\n  ")
            .Append(AcceptCommand)
            .Append("\nand commit the rewritten ").Append(baselinePath).Append('.');
        return message.ToString();
    }
}

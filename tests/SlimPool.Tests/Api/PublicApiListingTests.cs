using SlimPool.Tests.Api.Fixture;

namespace SlimPool.Tests.Api;

/// <summary>The listing itself, on fixture types whose every line is known, and the baseline diff.</summary>
public sealed class PublicApiListingTests
{
    private const string Namespace = "SlimPool.Tests.Api.Fixture";

    [Fact]
    public void Create_FixtureTypes_ListsEachVisibleTypeAndMemberInOrder()
    {
        string[] expected =
        [
            "F.ApiFixtureBase: public abstract class",
            "F.ApiFixtureBase.ApiFixtureBase(): protected constructor",
            "F.ApiFixtureBase.Run(F.ApiFixtureCallback! callback): protected abstract method -> void",
            "F.ApiFixtureBase.Size: public virtual property { get; } -> int",
            "F.ApiFixtureCallback: public delegate (int value) -> void",
            "F.ApiFixtureColor: [Flags] public enum : byte",
            "F.ApiFixtureColor.Blue: enum member = 2",
            "F.ApiFixtureColor.None: enum member = 0",
            "F.ApiFixtureColor.Red: enum member = 1",
            "F.ApiFixtureExtensions: public static class",
            "F.ApiFixtureExtensions.WithNote(this F.ApiFixtureWidget! widget, string? note = null): public static method -> F.ApiFixtureWidget!",
            "F.ApiFixturePair<T>: public readonly struct where T : class, System.IComparable<T>, new()",
            "F.ApiFixturePair<T>.ApiFixturePair(T? first): public constructor",
            "F.ApiFixturePair<T>.First: public property { get; } -> T?",
            "F.ApiFixturePair<T>.Group(System.ReadOnlySpan<T> items): public method -> System.Collections.Generic.Dictionary<string!, T[]?>!",
            "F.ApiFixtureWidget: public class : F.ApiFixtureBase, F.IApiFixtureService, System.IDisposable",
            "F.ApiFixtureWidget.ApiFixtureWidget(string! name, int count = 3, F.ApiFixtureColor color = F.ApiFixtureColor.Red, System.Threading.CancellationToken cancellationToken = default): public constructor",
            "F.ApiFixtureWidget.Changed: public event -> System.EventHandler?",
            "F.ApiFixtureWidget.Counter: public field -> int",
            "F.ApiFixtureWidget.DescribeAsync(System.Func<object?, string!>? format, System.Collections.Generic.IReadOnlyList<int?>! values): public method -> System.Threading.Tasks.Task<string?>!",
            "F.ApiFixtureWidget.Dispose(): public method -> void",
            "F.ApiFixtureWidget.Echo<T>(System.Func<T>! value): public static method -> System.Threading.Tasks.Task<T>!",
            "F.ApiFixtureWidget.Label: public const field -> string = \"a \\\"b\\\"\"",
            "F.ApiFixtureWidget.Limit: public const field -> int = 10",
            "F.ApiFixtureWidget.Name: public property { get; init; } -> string!",
            "F.ApiFixtureWidget.Note: public property { get; protected set; } -> string?",
            "F.ApiFixtureWidget.Pick<T>(T value, params object?[]! rest): public static method -> T where T : struct",
            "F.ApiFixtureWidget.Run(F.ApiFixtureCallback! callback): protected override method -> void",
            "F.ApiFixtureWidget.Shared: public static readonly field -> F.ApiFixtureWidget?",
            "F.ApiFixtureWidget.Size: public override property { get; } -> int",
            "F.ApiFixtureWidget.Start(): public method -> void",
            "F.ApiFixtureWidget.TryGet(out string? value, ref int count, in long id): public method -> bool",
            "F.ApiFixtureWidget.this[int index]: public property { get; } -> int",
            "F.ApiFixtureWidget.Part: public sealed class",
            "F.ApiFixtureWidget.Part.Part(): public constructor",
            "F.ApiFixtureWidget.Part.Value: public property { get; set; } -> int",
            "F.IApiFixtureService: public interface",
            "F.IApiFixtureService.Name: public abstract property { get; } -> string!",
            "F.IApiFixtureService.Start(): public abstract method -> void",
            "F.IApiFixtureService.Stop(): public virtual method -> void",
        ];

        IReadOnlyList<string> listing = FixtureListing();

        // "F." abbreviates the fixture namespace above; compare whole lines so a wrong one is shown whole.
        Assert.Equal(expected.Select(line => line.Replace("F.", Namespace + ".", StringComparison.Ordinal)), listing);
    }

    [Fact]
    public void Create_NonPublicTypesAndMembers_AreLeftOut()
    {
        string text = PublicApiListing.ToText(FixtureListing());

        Assert.DoesNotContain("Secret", text, StringComparison.Ordinal); // private nested type
        Assert.DoesNotContain("Hidden", text, StringComparison.Ordinal); // internal method
        Assert.DoesNotContain("NotVisible", text, StringComparison.Ordinal); // private protected method
        Assert.DoesNotContain("get_", text, StringComparison.Ordinal); // accessors belong to their property
        Assert.DoesNotContain("add_", text, StringComparison.Ordinal); // and to their event
    }

    [Fact]
    public void Create_SameTypesInAnotherOrder_GivesTheSameListing()
    {
        Type[] types = typeof(ApiFixtureWidget).Assembly.GetTypes().Where(t => t.Namespace == Namespace).ToArray();

        IReadOnlyList<string> forward = PublicApiListing.Create(types);
        IReadOnlyList<string> backward = PublicApiListing.Create(types.Reverse());

        Assert.Equal(forward, backward);
    }

    [Fact]
    public void Create_NullTypes_ThrowsArgumentNullException()
    {
        var exception = Assert.Throws<ArgumentNullException>(() => PublicApiListing.Create(null!));
        Assert.Equal("types", exception.ParamName);
    }

    [Fact]
    public void Diff_SameLines_IsNull()
    {
        string[] lines = ["A: public class", "A.M(): public method -> void"];

        Assert.Null(PublicApiBaseline.Diff("X", "src/X/PublicAPI.txt", lines, [.. lines]));
    }

    [Fact]
    public void Diff_ChangedLine_ShowsItAddedAndRemovedWithTheAcceptCommand()
    {
        string[] baseline = ["A: public class", "A.M(): public method -> void", "A.N(): public method -> void"];
        string[] current = ["A: public class", "A.M(int! x): public method -> void", "A.N(): public method -> void", "A.P(): public method -> void"];

        string? diff = PublicApiBaseline.Diff("X", "src/X/PublicAPI.txt", baseline, current);

        Assert.NotNull(diff);
        Assert.Contains("Lines added (2):\n  + A.M(int! x): public method -> void\n  + A.P(): public method -> void\n", diff, StringComparison.Ordinal);
        Assert.Contains("Lines removed (1):\n  - A.M(): public method -> void\n", diff, StringComparison.Ordinal);
        Assert.Contains(PublicApiBaseline.AcceptCommand, diff, StringComparison.Ordinal);
        Assert.Contains("src/X/PublicAPI.txt", diff, StringComparison.Ordinal);
        Assert.DoesNotContain("A.N()", diff, StringComparison.Ordinal);
    }

    [Fact]
    public void Diff_SameLinesReordered_ReportsTheOrder()
    {
        string? diff = PublicApiBaseline.Diff("X", "src/X/PublicAPI.txt", ["B", "A"], ["A", "B"]);

        Assert.NotNull(diff);
        Assert.Contains("another order", diff, StringComparison.Ordinal);
    }

    [Fact]
    public void Diff_MissingBaseline_SaysSoAndListsEveryLine()
    {
        string? diff = PublicApiBaseline.Diff("X", "src/X/PublicAPI.txt", [], ["A: public class"]);

        Assert.NotNull(diff);
        Assert.Contains("(missing or empty)", diff, StringComparison.Ordinal);
        Assert.Contains("  + A: public class", diff, StringComparison.Ordinal);
    }

    [Fact]
    public void ReadAndWrite_Lines_RoundTripWithLfEndings()
    {
        string path = Path.Combine(Path.GetTempPath(), $"slimpool-api-{Guid.NewGuid():N}.txt");
        try
        {
            string[] lines = ["A: public class", "A.\u00e9(): public method -> void"];

            PublicApiBaseline.Write(path, lines);

            Assert.Equal(lines, PublicApiBaseline.Read(path));
            Assert.DoesNotContain("\r", File.ReadAllText(path), StringComparison.Ordinal);
            Assert.Empty(PublicApiBaseline.Read(path + ".missing"));
        }
        finally
        {
            File.Delete(path);
        }
    }

    private static IReadOnlyList<string> FixtureListing() =>
        PublicApiListing.Create(typeof(ApiFixtureWidget).Assembly.GetTypes().Where(t => t.Namespace == Namespace));
}

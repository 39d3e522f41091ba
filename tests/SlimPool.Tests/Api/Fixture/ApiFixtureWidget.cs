namespace SlimPool.Tests.Api.Fixture;

// Fixture for PublicApiListingTests: a type with one member of each kind. Changing it changes the expected listing.
#pragma warning disable CA1822, CA1051, CA1003, CA1805, CS0067 // shapes, not behaviour

public class ApiFixtureWidget : ApiFixtureBase, IApiFixtureService, IDisposable
{
    public const int Limit = 10;
    public const string Label = "a \"b\"";

    public static readonly ApiFixtureWidget? Shared;

    public int Counter;

    public ApiFixtureWidget(string name, int count = 3, ApiFixtureColor color = ApiFixtureColor.Red, CancellationToken cancellationToken = default)
    {
        Name = name;
        _ = count;
        _ = color;
        _ = cancellationToken;
    }

    public event EventHandler? Changed;

    public string Name { get; init; }

    public string? Note { get; protected set; }

    public int this[int index] => index;

    public override int Size => 1;

    public static T Pick<T>(T value, params object?[] rest)
        where T : struct => value;

    public static Task<T> Echo<T>(Func<T> value) => Task.FromResult(value());

    public Task<string?> DescribeAsync(Func<object?, string>? format, IReadOnlyList<int?> values) => Task.FromResult<string?>(null);

    public bool TryGet(out string? value, ref int count, in long id)
    {
        value = null;
        return count + id > 0;
    }

    public void Start()
    {
    }

    public void Dispose()
    {
    }

    protected override void Run(ApiFixtureCallback callback) => callback(Size);

    internal void Hidden()
    {
    }

    public sealed class Part
    {
        public int Value { get; set; }
    }

    private sealed class Secret
    {
    }
}

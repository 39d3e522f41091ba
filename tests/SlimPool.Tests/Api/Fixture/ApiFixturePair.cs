namespace SlimPool.Tests.Api.Fixture;

// Fixture for PublicApiListingTests: a generic readonly struct with constraints and a generic argument in a signature.
public readonly struct ApiFixturePair<T>
    where T : class, IComparable<T>, new()
{
    public ApiFixturePair(T? first) => First = first;

    public T? First { get; }

    public Dictionary<string, T[]?> Group(ReadOnlySpan<T> items) => [];
}

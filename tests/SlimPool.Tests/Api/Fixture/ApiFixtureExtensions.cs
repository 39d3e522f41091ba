namespace SlimPool.Tests.Api.Fixture;

// Fixture for PublicApiListingTests: a static class with an extension method.
public static class ApiFixtureExtensions
{
    public static ApiFixtureWidget WithNote(this ApiFixtureWidget widget, string? note = null) => widget;
}

namespace SlimPool.Tests.Api.Fixture;

// Fixture for PublicApiListingTests.
[Flags]
#pragma warning disable CA1028 // the underlying type is what the listing must show
public enum ApiFixtureColor : byte
#pragma warning restore CA1028
{
    None = 0,
    Red = 1,
    Blue = 2,
}

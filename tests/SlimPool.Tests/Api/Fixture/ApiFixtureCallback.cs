namespace SlimPool.Tests.Api.Fixture;

// Fixture for PublicApiListingTests.
public delegate void ApiFixtureCallback(int value);

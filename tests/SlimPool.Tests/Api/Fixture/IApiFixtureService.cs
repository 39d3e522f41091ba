namespace SlimPool.Tests.Api.Fixture;

// Fixture for PublicApiListingTests: an abstract member and a default implementation.
public interface IApiFixtureService
{
    string Name { get; }

    void Start();

    void Stop() => Start();
}

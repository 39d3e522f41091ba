namespace SlimPool.Tests.Api.Fixture;

// Fixture for PublicApiListingTests.
public abstract class ApiFixtureBase
{
    protected ApiFixtureBase()
    {
    }

    public virtual int Size => 0;

    protected abstract void Run(ApiFixtureCallback callback);

    private protected void NotVisible()
    {
    }
}

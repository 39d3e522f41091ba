namespace SlimPool.Tests.Composition;

/// <summary>Thrown for a program that broke a promise; CsCheck shrinks on it and prints the smallest such program.</summary>
internal sealed class ComposeFailure : Exception
{
    public ComposeFailure()
    {
    }

    public ComposeFailure(string message)
        : base(message)
    {
    }

    public ComposeFailure(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

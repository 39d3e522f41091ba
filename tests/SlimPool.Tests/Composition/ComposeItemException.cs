namespace SlimPool.Tests.Composition;

/// <summary>What a <see cref="ItemKind.Throw"/> item throws: the pool must report it once, naming the item.</summary>
internal sealed class ComposeItemException : Exception
{
    public ComposeItemException()
    {
        Label = string.Empty;
    }

    public ComposeItemException(string label)
        : base($"item {label} throws on purpose")
    {
        Label = label;
    }

    public ComposeItemException(string message, Exception innerException)
        : base(message, innerException)
    {
        Label = string.Empty;
    }

    public string Label { get; }
}

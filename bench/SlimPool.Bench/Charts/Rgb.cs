namespace SlimPool.Bench.Charts;

/// <summary>An 8-bit RGB colour.</summary>
internal readonly record struct Rgb(byte R, byte G, byte B)
{
    public static Rgb White { get; } = new(255, 255, 255);

    public static Rgb Black { get; } = new(0, 0, 0);

    public static Rgb Grid { get; } = new(225, 225, 225);

    public static Rgb Gray { get; } = new(120, 120, 120);
}

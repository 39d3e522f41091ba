namespace SlimPool.Bench.Running;

/// <summary>One measured quantity of a repetition.</summary>
/// <param name="Name">Short name: a column header and a JSON key.</param>
/// <param name="Unit">Unit, e.g. "ms", "ns/item", "%".</param>
/// <param name="Value">The value.</param>
/// <param name="Format">.NET format string for tables.</param>
internal sealed record MeasuredValue(string Name, string Unit, double Value, string Format = "0.0");

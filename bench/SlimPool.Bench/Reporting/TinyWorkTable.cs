using System.Globalization;
using System.Text;

namespace SlimPool.Bench.Reporting;

/// <summary>Prints tiny-work results: one table per variant and work size, a row per pool, ratio to the baseline.</summary>
internal static class TinyWorkTable
{
    public static string Render(IReadOnlyList<CellResult> results, string baseline)
    {
        var text = new StringBuilder();
        foreach (var group in results.GroupBy(r => (r.Variant, r.Parameter)))
        {
            CellResult? reference = group.FirstOrDefault(r => r.Pool == baseline);
            CellResult first = group.First();
            text.AppendLine(CultureInfo.InvariantCulture,
                $"tiny-work, {first.Variant}, {first.Parameter} ticks ({first.Parameter * 0.1:0.#} µs) per item, {first.Items:N0} items");
            text.AppendLine("  pool                 wall ms median (min–max)          items/s   vs ThreadPool   efficiency");
            foreach (CellResult cell in group)
            {
                Stats wall = cell.Wall;
                string ratio = reference is null ? "n/a" : (wall.Median / reference.Wall.Median).ToString("0.00x", CultureInfo.InvariantCulture);
                string efficiency = first.Parameter == 0 ? "-" : cell.ParallelEfficiency.ToString("0.0%", CultureInfo.InvariantCulture);
                string range = string.Create(CultureInfo.InvariantCulture, $"{wall.Median * 1e3:0.0} ({wall.Min * 1e3:0.0}–{wall.Max * 1e3:0.0})");
                text.AppendLine(CultureInfo.InvariantCulture,
                    $"  {cell.Pool,-20} {range,-28} {cell.ItemsPerSecond,12:N0}   {ratio,13}   {efficiency,10}");
            }

            text.AppendLine();
        }

        return text.ToString();
    }
}

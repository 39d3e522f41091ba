using System.Globalization;

namespace SlimPool.Bench.Charts;

/// <summary>Draws a <see cref="LineChart"/> on a <see cref="Canvas"/> and encodes it as PNG.</summary>
internal static class LineChartRenderer
{
    private const int Left = 90, Right = 300, Top = 64, Bottom = 70, Scale = 2;

    public static IReadOnlyList<Rgb> Palette { get; } =
    [
        new(31, 119, 180), new(255, 127, 14), new(44, 160, 44), new(214, 39, 40), new(148, 103, 189),
        new(140, 86, 75), new(227, 119, 194), new(127, 127, 127), new(188, 189, 34), new(23, 190, 207),
    ];

    public static byte[] RenderPng(LineChart chart, int width = 1040, int height = 560) =>
        PngEncoder.Encode(width, height, Render(chart, width, height).Pixels);

    public static Canvas Render(LineChart chart, int width, int height)
    {
        var canvas = new Canvas(width, height, Rgb.White);
        int plotWidth = width - Left - Right, plotHeight = height - Top - Bottom;
        canvas.Text((width - TinyFont.MeasureWidth(chart.Title, Scale)) / 2, 10, chart.Title, Rgb.Black, Scale);

        double top = chart.Series.SelectMany(s => s.Values).Where(double.IsFinite).Append(chart.ReferenceY ?? 0).DefaultIfEmpty(1).Max() * 1.1;
        double step = NiceStep(top <= 0 ? 1 : top / 5);
        top = step * Math.Ceiling((top <= 0 ? 1 : top) / step);
        int Y(double value) => Top + plotHeight - (int)Math.Round(value / top * plotHeight);
        int columns = Math.Max(1, chart.XLabels.Count);
        int X(int index) => Left + (int)Math.Round((index + 0.5) * plotWidth / columns);

        for (double value = 0; value <= top + (step / 2); value += step)
        {
            int y = Y(value);
            canvas.Line(Left, y, Left + plotWidth, y, Rgb.Grid);
            string label = value.ToString("0.0#", CultureInfo.InvariantCulture);
            canvas.Text(Left - 8 - TinyFont.MeasureWidth(label, Scale), y - 7, label, Rgb.Black, Scale);
        }

        canvas.Line(Left, Top, Left, Top + plotHeight, Rgb.Black, 2);
        canvas.Line(Left, Top + plotHeight, Left + plotWidth, Top + plotHeight, Rgb.Black, 2);
        for (int i = 0; i < chart.XLabels.Count; i++)
        {
            canvas.Line(X(i), Top + plotHeight, X(i), Top + plotHeight + 6, Rgb.Black, 2);
            canvas.Text(X(i) - (TinyFont.MeasureWidth(chart.XLabels[i], Scale) / 2), Top + plotHeight + 12, chart.XLabels[i], Rgb.Black, Scale);
        }

        canvas.Text(Left + ((plotWidth - TinyFont.MeasureWidth(chart.XTitle, Scale)) / 2), height - 28, chart.XTitle, Rgb.Black, Scale);
        canvas.Text(8, Top - 22, chart.YTitle, Rgb.Black, Scale);

        if (chart.ReferenceY is double reference)
        {
            canvas.Line(Left, Y(reference), Left + plotWidth, Y(reference), Rgb.Gray, 2, dash: 8);
        }

        for (int s = 0; s < chart.Series.Count; s++)
        {
            ChartSeries series = chart.Series[s];
            (int X, int Y)? previous = null;
            for (int i = 0; i < series.Values.Count && i < columns; i++)
            {
                if (!double.IsFinite(series.Values[i]))
                {
                    previous = null;
                    continue;
                }

                (int x, int y) = (X(i), Y(series.Values[i]));
                if (previous is { } p)
                {
                    canvas.Line(p.X, p.Y, x, y, series.Color, 3);
                }

                canvas.FillRect(x - 4, y - 4, 9, 9, series.Color);
                previous = (x, y);
            }

            int legendY = Top + 10 + (s * 26);
            canvas.FillRect(Left + plotWidth + 20, legendY + 2, 24, 10, series.Color);
            canvas.Text(Left + plotWidth + 52, legendY, series.Name, Rgb.Black, Scale);
        }

        return canvas;
    }

    // 1, 2 or 5 times a power of ten, at least the raw step: gridlines at round numbers.
    private static double NiceStep(double raw)
    {
        double magnitude = Math.Pow(10, Math.Floor(Math.Log10(raw)));
        double fraction = raw / magnitude;
        return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude;
    }
}

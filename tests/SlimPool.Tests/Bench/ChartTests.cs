using System.Buffers.Binary;
using System.IO.Compression;
using System.Text;
using SlimPool.Bench.Charts;
using SlimPool.Bench.Reporting;

namespace SlimPool.Tests.Bench;

public sealed class ChartTests
{
    private static LineChart Sample(params ChartSeries[] series) =>
        new("title", "x", "y", ["0", "10", "100"], series) { ReferenceY = 1.0 };

    private static (int Width, int Height, byte[] Rgb, List<string> Chunks) Decode(byte[] png)
    {
        Assert.Equal(PngEncoder.Signature.ToArray(), png[..8]);
        var chunks = new List<string>();
        int width = 0, height = 0;
        using var idat = new MemoryStream();
        for (int at = 8; at < png.Length;)
        {
            int length = BinaryPrimitives.ReadInt32BigEndian(png.AsSpan(at));
            string type = Encoding.ASCII.GetString(png, at + 4, 4);
            ReadOnlySpan<byte> data = png.AsSpan(at + 8, length);
            uint crc = BinaryPrimitives.ReadUInt32BigEndian(png.AsSpan(at + 8 + length));
            Assert.Equal(Crc32.Compute(Encoding.ASCII.GetBytes(type), data), crc);
            if (type == "IHDR")
            {
                width = BinaryPrimitives.ReadInt32BigEndian(data);
                height = BinaryPrimitives.ReadInt32BigEndian(data[4..]);
            }
            else if (type == "IDAT")
            {
                idat.Write(data);
            }

            chunks.Add(type);
            at += 12 + length;
        }

        idat.Position = 0;
        using var zlib = new ZLibStream(idat, CompressionMode.Decompress);
        using var raw = new MemoryStream();
        zlib.CopyTo(raw);
        byte[] rows = raw.ToArray();
        Assert.Equal(height * (1 + (width * 3)), rows.Length);
        var rgb = new byte[width * height * 3];
        for (int y = 0; y < height; y++)
        {
            Assert.Equal(0, rows[y * (1 + (width * 3))]); // filter byte: none
            Array.Copy(rows, (y * (1 + (width * 3))) + 1, rgb, y * width * 3, width * 3);
        }

        return (width, height, rgb, chunks);
    }

    [Fact]
    public void RenderPng_OneSeries_IsAValidPngWithTheSeriesColourAndAWhiteCorner()
    {
        var red = new Rgb(214, 39, 40);

        (int width, int height, byte[] rgb, List<string> chunks) = Decode(LineChartRenderer.RenderPng(Sample(new ChartSeries("S", red, [0.5, 1.5, 1.0])), 640, 400));

        Assert.Equal((640, 400), (width, height));
        Assert.Equal(["IHDR", "IDAT", "IEND"], chunks);
        Assert.Equal((255, 255, 255), (rgb[0], rgb[1], rgb[2]));
        int redPixels = Enumerable.Range(0, width * height).Count(i => rgb[i * 3] == red.R && rgb[(i * 3) + 1] == red.G && rgb[(i * 3) + 2] == red.B);
        Assert.True(redPixels > 100, $"expected the series drawn in its colour, found {redPixels} pixels of it");
    }

    [Fact]
    public void RenderPng_NoSeries_IsStillAValidPng()
    {
        (int width, int height, _, List<string> chunks) = Decode(LineChartRenderer.RenderPng(Sample(), 320, 200));

        Assert.Equal((320, 200), (width, height));
        Assert.Equal("IEND", chunks[^1]);
    }

    [Fact]
    public void Encode_WrongPixelCount_ThrowsNamingTheArgument()
    {
        Assert.Equal("rgb", Assert.Throws<ArgumentException>(() => PngEncoder.Encode(2, 2, new byte[5])).ParamName);
    }

    [Fact]
    public void MeasureWidth_LongerText_IsWider()
    {
        Assert.True(TinyFont.MeasureWidth("1.00x", 2) > TinyFont.MeasureWidth("1x", 2));
        Assert.Equal(0, TinyFont.MeasureWidth("", 2));
    }

    [Fact]
    public void TinyWorkChart_Build_GivesOneSeriesPerPoolWithRatiosToThreadPool()
    {
        static PoolResult Row(string pool, double ms) => new(pool, [new Metric("wall", "ms", [ms])]);
        CaseResult[] results =
        [
            new("tiny-work", "a", [Row("ThreadPool", 10), Row("SlimPool", 5)]) { Variant = "capped", Parameter = 0 },
            new("tiny-work", "b", [Row("ThreadPool", 20), Row("SlimPool", 30)]) { Variant = "capped", Parameter = 10 },
            new("tiny-work", "c", [Row("ThreadPool", 20), Row("SlimPool", 10)]) { Variant = "uncapped", Parameter = 0 },
        ];

        LineChart chart = TinyWorkChart.Build(results)!;

        Assert.Equal(["0", "10"], chart.XLabels);
        Assert.Equal(["ThreadPool", "SlimPool"], chart.Series.Select(s => s.Name));
        Assert.Equal([0.5, 1.5], chart.Series[1].Values);
    }
}

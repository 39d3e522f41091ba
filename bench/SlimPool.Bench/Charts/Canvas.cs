namespace SlimPool.Bench.Charts;

/// <summary>An RGB raster to draw a chart on: pixels, rectangles, thick and dashed lines, and 5×7 text.</summary>
internal sealed class Canvas
{
    private readonly byte[] _rgb;

    public Canvas(int width, int height, Rgb background)
    {
        Width = width;
        Height = height;
        _rgb = new byte[width * height * 3];
        FillRect(0, 0, width, height, background);
    }

    public int Width { get; }

    public int Height { get; }

    public ReadOnlySpan<byte> Pixels => _rgb;

    public Rgb GetPixel(int x, int y) => new(_rgb[((y * Width) + x) * 3], _rgb[(((y * Width) + x) * 3) + 1], _rgb[(((y * Width) + x) * 3) + 2]);

    public void SetPixel(int x, int y, Rgb color)
    {
        if ((uint)x >= (uint)Width || (uint)y >= (uint)Height)
        {
            return;
        }

        int i = ((y * Width) + x) * 3;
        _rgb[i] = color.R;
        _rgb[i + 1] = color.G;
        _rgb[i + 2] = color.B;
    }

    public void FillRect(int x, int y, int width, int height, Rgb color)
    {
        for (int row = y; row < y + height; row++)
        {
            for (int column = x; column < x + width; column++)
            {
                SetPixel(column, row, color);
            }
        }
    }

    /// <summary>Bresenham's line with a square brush of <paramref name="thickness"/>; every <paramref name="dash"/> pixels on, then off, when dashed.</summary>
    public void Line(int x0, int y0, int x1, int y1, Rgb color, int thickness = 1, int dash = 0)
    {
        int dx = Math.Abs(x1 - x0), dy = -Math.Abs(y1 - y0);
        int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
        int error = dx + dy;
        int step = 0;
        while (true)
        {
            if (dash == 0 || (step / dash) % 2 == 0)
            {
                FillRect(x0 - (thickness / 2), y0 - (thickness / 2), thickness, thickness, color);
            }

            if (x0 == x1 && y0 == y1)
            {
                return;
            }

            int doubled = 2 * error;
            if (doubled >= dy)
            {
                error += dy;
                x0 += sx;
            }

            if (doubled <= dx)
            {
                error += dx;
                y0 += sy;
            }

            step++;
        }
    }

    public void Text(int x, int y, string text, Rgb color, int scale = 2)
    {
        foreach (char c in text)
        {
            byte[] glyph = TinyFont.Glyph(c);
            for (int row = 0; row < TinyFont.GlyphHeight; row++)
            {
                for (int column = 0; column < TinyFont.GlyphWidth; column++)
                {
                    if ((glyph[row] & (0x10 >> column)) != 0)
                    {
                        FillRect(x + (column * scale), y + (row * scale), scale, scale, color);
                    }
                }
            }

            x += (TinyFont.GlyphWidth + 1) * scale;
        }
    }
}

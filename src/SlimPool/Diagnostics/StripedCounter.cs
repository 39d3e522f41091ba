using System.Numerics;
using System.Runtime.InteropServices;

namespace SlimPool.Diagnostics;

/// <summary>
/// A counter split into per-core cells on separate cache lines: <see cref="Increment"/> touches the current
/// core's cell, so threads on different cores do not contend; <see cref="Sum"/> adds the cells up.
/// </summary>
internal sealed class StripedCounter
{
    private readonly Cell[] _cells = new Cell[Math.Max(1, (int)BitOperations.RoundUpToPowerOf2((uint)Environment.ProcessorCount))];

    /// <summary>Adds one on the current core's cell (a full fence) and returns that cell, for <see cref="Decrement"/>.</summary>
    public int Increment()
    {
        int cell = Thread.GetCurrentProcessorId() & (_cells.Length - 1);
        Interlocked.Increment(ref _cells[cell].Value);
        return cell;
    }

    /// <summary>
    /// Takes back an <see cref="Increment"/> on the same cell, so no cell ever shows the decrement without the
    /// increment, and a <see cref="Sum"/> read cell by cell never undercounts.
    /// </summary>
    public void Decrement(int cell) => Interlocked.Decrement(ref _cells[cell].Value);

    /// <summary>The total; exact when no thread is changing the counter.</summary>
    public long Sum()
    {
        long sum = 0;
        for (int i = 0; i < _cells.Length; i++)
        {
            sum += Interlocked.Read(ref _cells[i].Value);
        }

        return sum;
    }

    [StructLayout(LayoutKind.Explicit, Size = 128)]
    private struct Cell
    {
        [FieldOffset(0)]
        public long Value;
    }
}

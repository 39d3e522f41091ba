using System.Runtime.InteropServices;

namespace SlimPool.Scheduling;

/// <summary>A <see cref="long"/> alone on its cache line: one worker writes it, others read it.</summary>
[StructLayout(LayoutKind.Explicit, Size = 128)]
internal struct PaddedLong
{
    [FieldOffset(0)]
    public long Value;
}

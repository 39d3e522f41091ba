using System.Runtime.InteropServices;

namespace SlimPool.Scheduling;

/// <summary>
/// A <see cref="long"/> alone on its cache line, whatever fields sit beside it: 128 bytes of padding on each side (two
/// lines, against the adjacent-line prefetch), as <see cref="PaddedInt"/>.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 2 * 128)]
internal struct PaddedLong
{
    [FieldOffset(128)]
    public long Value;
}

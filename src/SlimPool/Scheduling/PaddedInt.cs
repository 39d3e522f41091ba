using System.Runtime.InteropServices;

namespace SlimPool.Scheduling;

/// <summary>An <see cref="int"/> alone on its cache line, for a counter that many threads touch.</summary>
[StructLayout(LayoutKind.Explicit, Size = 2 * 128)]
internal struct PaddedInt
{
    [FieldOffset(128)]
    public int Value;
}

using System.Runtime.InteropServices;

namespace SlimPool.Queues;

/// <summary>
/// A head and a tail index, each alone on its own cache line (128 bytes, to defeat adjacent-line
/// prefetch too), so that consumers moving the head and producers moving the tail do not false-share.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 3 * CacheLineSize)]
internal struct PaddedHeadAndTail
{
    internal const int CacheLineSize = 128;

    [FieldOffset(CacheLineSize)]
    public long Head;

    [FieldOffset(2 * CacheLineSize)]
    public long Tail;
}

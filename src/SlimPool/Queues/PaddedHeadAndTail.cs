using System.Diagnostics.CodeAnalysis;
using System.Runtime.InteropServices;

namespace SlimPool.Queues;

/// <summary>
/// A head and a tail index, each alone on its own cache line (128 bytes, to defeat adjacent-line prefetch too), so
/// that consumers moving the head and producers moving the tail do not false-share: the pool's shared queue, where
/// one thread produces while others consume. 384 bytes a segment.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 3 * CacheLineSize)]
internal struct PaddedHeadAndTail : ISegmentPositions
{
    internal const int CacheLineSize = 128;

    [FieldOffset(CacheLineSize)]
    private long _head;

    [FieldOffset(2 * CacheLineSize)]
    private long _tail;

    /// <inheritdoc />
    [UnscopedRef]
    public ref long Head => ref _head;

    /// <inheritdoc />
    [UnscopedRef]
    public ref long Tail => ref _tail;
}

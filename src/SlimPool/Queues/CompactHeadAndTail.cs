using System.Diagnostics.CodeAnalysis;
using System.Runtime.InteropServices;

namespace SlimPool.Queues;

/// <summary>
/// A head and a tail index one cache line (64 bytes) apart, with no padding before or after: a group's queue, of
/// which there may be a million, each made when items arrive and dropped when they are done. The two words never
/// share a line, so a producer and the group's turn on two cores do not move one line back and forth for each item;
/// the neighbouring fields and objects may share theirs, which a group's turn touches anyway.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = CacheLineSize + sizeof(long))]
internal struct CompactHeadAndTail : ISegmentPositions
{
    private const int CacheLineSize = 64;

    [FieldOffset(0)]
    private long _head;

    [FieldOffset(CacheLineSize)]
    private long _tail;

    /// <inheritdoc />
    [UnscopedRef]
    public ref long Head => ref _head;

    /// <inheritdoc />
    [UnscopedRef]
    public ref long Tail => ref _tail;
}

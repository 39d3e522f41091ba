using System.Diagnostics.CodeAnalysis;
using System.Runtime.InteropServices;

namespace SlimPool.Queues;

/// <summary>
/// A head and a tail index one cache line (64 bytes) apart, with no padding before or after: a group's queue, of
/// which there may be a million, each made when items arrive and dropped when they are done. The two words never
/// share a line, so a producer and the group's turn on two cores do not trade one line for each item. They do sit in one
/// 128-byte pair, which the adjacent-line prefetcher moves together, and the head shares its line with the segment's
/// read-only fields. A serial queue streaming from another core pays about 2 ns an item for that (decisions.md,
/// Queues), and groups allocate a third less.
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

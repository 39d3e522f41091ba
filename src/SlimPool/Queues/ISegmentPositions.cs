using System.Diagnostics.CodeAnalysis;

namespace SlimPool.Queues;

/// <summary>
/// Where a <see cref="LockFreeSegment{TPositions}"/> keeps its head and tail: a struct, so each layout is its own
/// specialization of the queue's code and the two words are plain fields of the segment.
/// </summary>
internal interface ISegmentPositions
{
    /// <summary>The position consumers claim next.</summary>
    [UnscopedRef]
    ref long Head { get; }

    /// <summary>The position producers claim next, with the segment's frozen and retired bits.</summary>
    [UnscopedRef]
    ref long Tail { get; }
}

using System.Runtime.CompilerServices;

namespace SlimPool.Queues;

/// <summary>
/// One address range that holds the stacks of every thread ever attached to a <see cref="WorkStealingWorkQueue"/>: a
/// caller whose local lies outside it is not attached to that queue, which a producer from outside the pool learns from two
/// fields and the address of a local instead of a thread-local lookup (on Linux a call into the runtime's TLS, about
/// 1.3 ns of a 7 ns publish). HotSpot once found its current thread by the stack pointer for the same reason.
/// </summary>
/// <remarks>
/// <para><b>Only a filter.</b> Inside the range a caller still looks up its thread-local: a thread created between
/// two workers, or one whose stack the range grew over, is told apart there. Outside it, the caller is not attached,
/// exactly: the range holds every attached thread's whole stack, as the operating system reserved it
/// (<see cref="ThreadStackBounds"/>), and a thread's locals all lie in its stack. Where the bounds cannot be read (a
/// main thread, whose stack grows on demand; a system without the calls), the range becomes every address, and every
/// caller looks up.</para>
/// <para><b>Races.</b> The two ends only widen, each on its own, under the queue's attach lock
/// (<see cref="Add"/>), and are read without it. An attached thread widened them itself before its first
/// push, so each of its reads returns its own widening or a later one of that field, every one at least as wide: it
/// always finds itself inside, whatever mix of the two fields it reads. Any other caller may read any mix, which can
/// only send it to its thread-local.</para>
/// </remarks>
internal struct AttachedStacks
{
    private nuint _low;  // lowest address of an attached thread's stack; nuint.MaxValue while none is attached
    private nuint _high; // one past the highest; zero while none is attached

    /// <summary>An empty range: no thread is attached.</summary>
    public AttachedStacks()
    {
        _low = nuint.MaxValue;
        _high = 0;
    }

    /// <summary>
    /// Whether the calling thread may be attached: its stack lies in the range. False only for a thread that is not.
    /// </summary>
    public readonly unsafe bool MayHoldCurrentThread
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get
        {
            Unsafe.SkipInit(out byte local); // only its address is read: somewhere in this thread's stack
            nuint here = (nuint)(&local);
            nuint low = _low;
            nuint high = _high;
            return here - low < high - low; // low <= here < high; false for the empty range (MaxValue, 0)
        }
    }

    /// <summary>
    /// The calling thread's stack, for <see cref="Add"/>: every address where its bounds cannot be read. Read before the
    /// queue's attach lock is taken (it may ask the operating system).
    /// </summary>
    public static (nuint Low, nuint High) CurrentThreadStack() =>
        ThreadStackBounds.TryGetCurrent(out nuint low, out nuint high) ? (low, high) : (0, nuint.MaxValue);

    /// <summary>
    /// Widens the range over <paramref name="stack"/>, an attaching thread's (<see cref="CurrentThreadStack"/>), before
    /// that thread's first push. The caller holds the queue's attach lock.
    /// </summary>
    public void Add((nuint Low, nuint High) stack)
    {
        if (stack.Low < _low)
        {
            _low = stack.Low;
        }

        if (stack.High > _high)
        {
            _high = stack.High;
        }
    }
}

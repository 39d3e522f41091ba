namespace SlimPool.Scheduling;

/// <summary>
/// A wait for another thread's few stores (a claimed cell's write, a slot's move, a thief's copy) inside a protocol
/// step: it spins, then yields the core, and never sleeps. <see cref="SpinWait"/> sleeps with <c>Thread.Sleep(0)</c>,
/// which throws at a pending <see cref="Thread.Interrupt"/>; a step that has claimed an item and waits for it must not
/// throw there, or the item stays claimed and is never taken (an item can leave its worker's thread interrupted, and
/// any caller's thread may be interrupted). <see cref="Thread.Yield"/> gives the core away as that sleep does on Linux
/// (both are sched_yield) and ignores the interrupt, which stays pending for the thread's next wait.
/// </summary>
internal struct UninterruptedSpin
{
    // As SpinWait: about ten doubling spins before the first yield.
    private const int YieldThreshold = 10;

    private int _count;

    /// <summary>Spins a little longer each call, and past the first few calls yields the core instead.</summary>
    public void SpinOnce()
    {
        if (_count >= YieldThreshold || Environment.ProcessorCount == 1)
        {
            Thread.Yield();
        }
        else
        {
            Thread.SpinWait(1 << _count);
        }

        if (_count < int.MaxValue)
        {
            _count++;
        }
    }
}

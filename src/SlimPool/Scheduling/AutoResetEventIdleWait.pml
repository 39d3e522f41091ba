/*
 * Promela model of AutoResetEventIdleWait (AutoResetEventIdleWait.cs) and the producer side of
 * SlimThreadPool.TryEnqueue. Checked by eng/check-models.sh with Spin: no execution gets stuck with an item
 * queued while every worker waits on the event, and Set is called at most once per push.
 * With -DBROKEN the re-check between announcing idle and waiting is removed (the seed design as written),
 * and Spin must find the lost wake-up.
 *
 * Memory model as in SpinThenParkIdleWait.pml: sequential consistency, which the C# code gets from
 * Interlocked.MemoryBarrier (producer) and Interlocked.Increment (worker's announcement).
 */

#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef PRODUCERS
#define PRODUCERS 2
#endif
#ifndef PUSHES
#define PUSHES 2
#endif

byte items = 0;
byte idle = 0;                 /* _idleCount */
bool signaled = false;         /* the AutoResetEvent */
byte pushes = 0;
byte sets = 0;

proctype Producer() {
    byte i = 0;
    do
    :: i < PUSHES ->
        atomic { items++; pushes++ };              /* Enqueue; Interlocked.MemoryBarrier() */
        if                                         /* OnWorkQueued */
        :: idle > 0 -> signaled = true; sets++
        :: else -> skip
        fi;
        i++
    :: else -> break
    od
}

proctype Worker() {
    bool found;
loop:
    atomic {                                       /* TryDequeue */
        if
        :: items > 0 -> items--; found = true
        :: else -> found = false
        fi
    }
    if
    :: found -> goto loop                          /* Execute(item) */
    :: else -> skip
    fi;
    idle++;                                        /* WaitForWork: Interlocked.Increment (announce) */
#ifndef BROKEN
    if                                             /* re-check after announcing */
    :: items > 0 -> idle--; goto loop
    :: else -> skip
    fi;
#endif
end_wait:
    atomic { signaled -> signaled = false };       /* _event.WaitOne(): auto-reset */
    idle--;
    goto loop
}

active proctype Watchdog() {
end_watch:
    timeout ->
        assert(items == 0);
        assert(sets <= pushes)
}

init {
    byte w = 0;
    atomic {
        do
        :: w < WORKERS -> run Worker(); w++
        :: else -> break
        od;
        w = 0;
        do
        :: w < PRODUCERS -> run Producer(); w++
        :: else -> break
        od
    }
}

/*
 * Promela model of AutoResetEventIdleWait (AutoResetEventIdleWait.cs) and the producer side of
 * SlimThreadPool.TryEnqueue. Checked by eng/check-models.sh with Spin: no execution gets stuck with an item
 * queued while every worker waits on the event, and Set is called at most once per push.
 * With -DBROKEN the re-check between announcing idle and waiting is removed (the seed design as written),
 * and Spin must find the lost wake-up.
 * With -DBLOCKING an item may block for ever (it never returns, and tells nobody). Then the property is that no item
 * is left queued while a worker waits on the event (blocked workers are the starvation guard's business, see
 * StarvationGuard.pml). Two Sets that land while the event is already set merge into one wake; the worker it wakes
 * passes it on once it has taken its item (OnWorkTaken, the chain: two separate loads, the idle count and the queue).
 * With -DBATCH each producer queues its PUSHES items as one batch (SlimThreadPool.QueueBatch): all published in one
 * step, then one OnWorkQueued; the chain must pass the one Set on while items wait.
 * With -DBROKEN_CHAIN the chain is removed, and Spin must find the second item stranded behind the first, blocked.
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
byte chainSets = 0;

proctype Producer() {
    byte i = 0;
#ifdef BATCH
    atomic { items = items + PUSHES; pushes = pushes + PUSHES };  /* QueueBatch: one chunk, then one OnWorkQueued */
    if
    :: idle > 0 -> signaled = true; sets++
    :: else -> skip
    fi;
    i = PUSHES;
#endif
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
    bool woken = false;                            /* t_woken: the last wait ended with the event */
    byte seenIdle;
loop:
    atomic {                                       /* TryDequeue */
        if
        :: items > 0 -> items--; found = true
        :: else -> found = false
        fi
    }
    if
    :: found ->
#ifndef BROKEN_CHAIN
        if                                         /* OnWorkTaken: the chain, after a wake by the event */
        :: woken ->
            woken = false;
            seenIdle = idle;                       /* one load ... */
            if
            :: seenIdle > 0 && items > 0 -> signaled = true; chainSets++   /* ... and another */
            :: else -> skip
            fi
        :: else -> skip
        fi;
#endif
#ifdef BLOCKING
        if
        :: true -> goto loop                       /* Execute(item): it returns */
        :: true ->
end_blocked:
            false                                  /* or it blocks for ever */
        fi
#else
        goto loop                                  /* Execute(item) */
#endif
    :: else -> skip
    fi;
    woken = false;
    idle++;                                        /* WaitForWork: Interlocked.Increment (announce) */
#ifndef BROKEN
    if                                             /* re-check after announcing */
    :: items > 0 -> idle--; goto loop
    :: else -> skip
    fi;
#endif
    /* DeferredQueueDrops: a worker that keeps group queues waits first for what is left of the keep time: the event
       ends that wait, or it times out (only while the event is not set), drops the queues (which queues nothing and
       wakes nobody) and waits below, still counted idle. A worker that keeps none skips it. */
    if
    :: atomic { signaled -> signaled = false }; woken = true; idle--; goto loop
    :: atomic { !signaled -> skip }
    fi;
end_wait:
    atomic { signaled -> signaled = false };       /* _event.WaitOne(): auto-reset */
    woken = true;
    idle--;
    goto loop
}

active proctype Watchdog() {
end_watch:
    timeout ->
#ifdef BLOCKING
        assert(items == 0 || idle == 0);           /* nothing queued while a worker sleeps */
#else
        assert(items == 0);
#endif
        assert(sets <= pushes);
        assert(chainSets <= pushes)
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

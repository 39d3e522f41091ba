/*
 * Promela model of StarvationGuard (StarvationGuard.cs), its arming by Publisher.Publish (AfterPublish), and workers whose
 * items may block for ever, or (with -DCOMPUTE) compute for ever. Checked by eng/check-models.sh with Spin.
 *
 * Property (the guard's liveness, as a safety check on Spin's end states): when nothing can move any more, no item
 * is left queued, unless the spare ceiling is reached, or the workers are mostly computing and the compute-bound
 * spares are spent (the rule's deliberate limit, below). In every such end state the workers that exist are stuck in
 * items that never return (or wait for work with the queue empty); an item still queued then would wait for ever.
 * The guard must have seen it: it watches one period at a time while the queue is not empty, and each period that
 * ends with an item waiting and no completion starts a spare when at least half the workers are blocked (a worker
 * parked while items wait counts as blocked), or while fewer than COMPUTE_SPARES spares are above the worker count
 * (StarvationGuard.AddsSpare: the workers' clocks tell blocked from runnable; the model classifies exactly). A
 * period with completions may start one too (the second rule, which the clocks decide; the model takes either).
 * With -DCOMPUTE an item may also compute for ever: on a CPU, never completing, never blocked. Then items can be
 * stranded behind computing workers once COMPUTE_SPARES spares are spent (a CPU livelock: items that spin until a
 * queued item runs); the property allows exactly that, and -DSTRICT (the property without that allowance) must fail,
 * so the limit is real and stated. With -DBROKEN_RUNNABLE the no-progress rule ignores blocked workers (it fires only
 * below the compute-bound allowance): items blocked for ever strand the queue, and Spin must find it.
 * With -DOLD_ARMING the producer unparks the guard only when its read of the idle state found no worker idle or
 * searching (the code before this model): a burst that lands on idle workers, which then block, leaves items
 * queued and the guard parked. Spin must find that.
 * With -DWS the queue is the work-stealing one: a worker that takes an item from the shared queue may move a batch
 * more into its own batch (one or two here): the batch leaves the shared queue in one step and arrives in the
 * worker's batch in another (RefillBatch.Fill's exchange); in between it is in neither place, so a look at the queue
 * (IsEmpty) may see nothing (not linearizable). The refill then arms the guard like a publish (Publisher.OnRefilled);
 * with -DBROKEN_REFILL it does not, and Spin must find the item stranded behind a guard that parked during the
 * transit. A batch's items stay visible and stealable, so they count in `items` once filled. A steal may leave a
 * lone item to its owner (WorkStealingDeque.TryStealAfterOwnerGrace): TryDequeue may then fail with items queued,
 * up to DECLINES times (default 1); the code fails only once the owner took the item, which this over-approximates.
 *
 * What is abstracted: the idle protocol's own correctness is checked by the idle-wait models; here a worker with no
 * item waits until the queue is not empty (an ideal idle wait) and `idle` counts workers waiting. A period of the
 * guard is "any interleaving": the model lets every other process run between the guard's two reads of the
 * progress count, which covers a period with and without completions. A period that ends in a decline (no spare)
 * is followed by a wait until what the guard reads would make it act (end_declined): the code declines period after
 * period alike, and the wait lets Spin see the end state where nothing would ever make it act. The workers' clocks are exact here: a worker
 * blocked for ever reads as blocked, one computing for ever or running an item that returns as runnable (the code's
 * classification errs towards runnable, which only adds the COMPUTE case's limit); a spare started and not yet in
 * its loop counts as runnable, as the code counts a worker whose thread has not yet published its id. Memory is sequentially
 * consistent, as the code's full fences make the accesses that matter (publish + fence / announce + re-check).
 */

#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef PRODUCERS
#define PRODUCERS 1
#endif
#ifndef PUSHES
#define PUSHES 3            /* items per producer */
#endif
#define MAXSPARES (PRODUCERS * PUSHES)
#ifndef COMPUTE_SPARES
#define COMPUTE_SPARES 1    /* StarvationGuard.ComputeBoundSpares */
#endif

byte items = 0;             /* queued, not taken */
byte progress = 0;          /* WorkerSet.Progress(): items completed */
byte idle = 0;              /* workers waiting for work (idle or searching) */
bool guardParked = false;   /* StarvationGuard._parker: AnnouncedParker._parked */
bool permit = false;        /* the guard's Parker */
byte spares = 0;
byte blocked = 0;           /* workers blocked for ever in an item */
byte computing = 0;         /* -DCOMPUTE: workers computing for ever in an item */
byte transit = 0;           /* taken from the shared queue, not yet in the taker's batch */
#ifndef DECLINES
#define DECLINES 1          /* -DWS: how many dequeues may fail with items queued (a steal's grace) */
#endif
byte declines = 0;

/* StarvationGuard.AddsSpare after a period without progress: at least half the live workers blocked (a parked one
   counts as blocked), or fewer than COMPUTE_SPARES spares. Workers running an item that returns, or computing for
   ever, are runnable. With -DBROKEN_RUNNABLE blocked workers are ignored. */
#ifndef BROKEN_RUNNABLE
#define NO_PROGRESS_RULE (2 * (blocked + idle) >= WORKERS + spares || spares < COMPUTE_SPARES)
#else
#define NO_PROGRESS_RULE (spares < COMPUTE_SPARES)
#endif

/* StarvationGuard.OnQueued: read _parked; the caller whose exchange takes it from 1 to 0 unparks the guard. */
inline armGuard() {
    if
    :: guardParked ->
        if
        :: atomic { guardParked -> guardParked = false }; permit = true
        :: atomic { !guardParked -> skip }       /* another exchange won */
        fi
    :: else -> skip
    fi
}

proctype Worker() {
    bool found;
    byte moving;                                /* -DWS: items of our refill not yet in our batch */
loop:
    atomic {                                    /* TryDequeue */
        if
        :: items > 0 -> items--; found = true
#ifdef WS
        :: items > 0 && declines < DECLINES -> declines++; found = false   /* a steal's grace (see the top) */
#endif
        :: else -> found = false
        fi
    }
    if
    :: found ->
#ifdef WS
        if                                      /* RefillFrom: a batch (one or two) leaves the shared queue at once, */
        :: atomic { items > 0 -> items--; transit++; moving = 1;  /* then arrives in the worker's batch at once */
                    if
                    :: items > 0 -> items--; transit++; moving = 2
                    :: true -> skip
                    fi };
            atomic { transit = transit - moving; items = items + moving; moving = 0 };
#ifndef BROKEN_REFILL
            armGuard()                          /* OnRefilled: full fence, wake check, guard arming */
#else
            skip
#endif
        :: true -> skip
        fi;
#endif
        if
        :: progress++; goto loop                /* the item returns */
        :: blocked++; goto stuck                /* the item blocks for ever, without a hint */
#ifdef COMPUTE
        :: computing++; goto stuck              /* the item computes for ever: runnable, never completes */
#endif
        fi
    :: else -> skip
    fi;
    idle++;
end_idle:
    atomic { items > 0 -> idle-- };             /* an ideal idle wait: woken once something is queued */
    goto loop;
stuck:
end_stuck:
    false
}

proctype Producer() {
    byte i = 0;
    bool allBusy;
    do
    :: i < PUSHES ->
        atomic { items++ };                     /* EnqueueThenFence: publish, full fence */
        allBusy = (idle == 0);                  /* IdleWait.OnWorkQueued's read of the idle state */
#ifdef OLD_ARMING
        if                                      /* the old arming: only when every worker was busy */
        :: allBusy && guardParked -> permit = true
        :: else -> skip
        fi;
#else
        armGuard();
#endif
        i++
    :: else -> break
    od
}

active proctype Guard() {
    byte before;
loop:
    if
    :: items == 0 ->
        guardParked = true;                     /* Interlocked.Exchange(ref _parked, 1): announce */
        if
        :: items == 0 ->                        /* re-check, then park */
end_parked:
            atomic { permit -> permit = false }
        :: else -> skip
        fi;
        guardParked = false
    :: else -> skip
    fi;
    /* WaitOnePeriod: everything else may run meanwhile */
    before = progress;
    if
    :: items > 0 && progress == before && spares < MAXSPARES && NO_PROGRESS_RULE ->
        atomic { spares++; run Worker() }       /* WorkerSet.TryStartSpare */
    /* The second rule: after a period with progress, the clocks decide; the model takes either. */
    :: items > 0 && progress != before && spares < MAXSPARES ->
        atomic { spares++; run Worker() }
    :: items > 0 && progress != before -> skip
    :: else ->
        /* Nothing waits, or no progress and no spare (the rule said no, or the ceiling). The code watches period after
           period and declines alike until what it reads would make it act, so the model waits for that; if it can
           never happen, Spin reaches an end state here and the watchdog checks it. */
end_declined:
        (items == 0 || progress != before || (spares < MAXSPARES && NO_PROGRESS_RULE))
    fi;
    goto loop
}

active proctype Watchdog() {
end_watch:
#ifdef STRICT
    timeout -> assert(items == 0 || spares == MAXSPARES)
#else
    timeout -> assert(items == 0 || spares == MAXSPARES || (2 * blocked < WORKERS + spares && spares >= COMPUTE_SPARES))
#endif
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

/*
 * Promela model of a group's turns (GroupTurns.cs): producers that queue an item and take a turn if one is free,
 * turns that run the group's items on the pool's workers, give the turn back with a re-check when the queue is empty,
 * yield at the end of a quantum (or run on, when the pool has nothing else queued: the model takes either), and the
 * group's abandon with its sweep. Checked by eng/check-models.sh with Spin.
 *
 * Properties:
 *  - at most MAXTURNS of the group's items run at once (asserted at every start of an item);
 *  - no item is stranded: when nothing can move any more, an item still in the group's queue has a turn held for it
 *    (queued on the pool, or running an item that never returns), asserted by a check that runs at Spin's timeout.
 * With -DBLOCKING an item may never return: its turn stays held for ever, which is allowed; what is not allowed is a
 * queued item with no turn held at all.
 * With -DABANDON a process runs the group's abandon (GroupTurns.Abandon): it raises `abandoning`, sweeps the queue,
 * raises `swept`, and looks at the queue once more; turns that see the abandon before the sweep give their turn back
 * without a re-check (EndTurn).
 * Broken variants Spin must reject: -DBROKEN (EndTurn gives the turn back without looking at the queue again),
 * -DBROKEN_SWEEP (the abandon does not look at the queue after its sweep).
 *
 * What is the code, step by step: the producer's publish (the lock-free queue's compare-and-swap, a full fence), its
 * separate read of `turns` and its compare-and-swap (TryTakeTurn); the turn's failed dequeue, its decrement (a full
 * fence), then separate reads of `abandoning`, `swept` and the queue. What is abstracted: the pool runs a queued turn
 * eventually (its own no-lost-wake-up proof is the idle-wait models'): here a worker takes any queued turn. Memory is
 * sequentially consistent, as the code's full fences make the accesses that matter.
 */

#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef PRODUCERS
#define PRODUCERS 2
#endif
#ifndef PUSHES
#define PUSHES 1             /* items per producer */
#endif
#ifndef MAXTURNS
#define MAXTURNS 1           /* SlimGroupOptions.MaxConcurrency */
#endif
#ifndef QUANTUM
#define QUANTUM 1            /* SlimGroupOptions.MaxItemsPerTurn */
#endif

byte q = 0;                  /* the group's queue: items accepted, not taken */
byte turns = 0;              /* GroupTurns._turns: turns held (queued on the pool or running) */
byte poolQueue = 0;          /* turn entries queued on the pool */
byte running = 0;            /* the group's items running now */
bool abandoning = false;
bool swept = false;
byte handedBack = 0;

/* GroupTurns.TryTakeTurn: a read, then a compare-and-swap below the limit. */
inline tryTakeTurn(took) {
    byte seen;
    took = false;
    seen = turns;
    do
    :: seen < MAXTURNS ->
        atomic {
            if
            :: turns == seen -> turns++; took = true
            :: else -> seen = turns
            fi
        }
        if
        :: took -> break
        :: else -> skip
        fi
    :: else -> break
    od;
    assert(turns <= MAXTURNS)
}

proctype Producer() {
    byte i = 0;
    bool took;
    do
    :: i < PUSHES ->
        q++;                                 /* publish: EnqueueFenced's compare-and-swap, a full fence */
        tryTakeTurn(took);
        if
        :: took -> poolQueue++               /* PublishAccepted: a turn entry on the pool */
        :: else -> skip
        fi;
        i++
    :: else -> break
    od
}

/* One turn, as GroupTurns.RunTurn runs it on a worker. */
inline runTurn() {
    byte ran = 0;
    bool again;
    do
    :: (abandoning && !swept) || q == 0 ->   /* IsSweeping, or a failed dequeue (separate reads) */
        /* EndTurn */
        turns--;                             /* Interlocked.Decrement: a full fence */
#ifdef BROKEN
        break;
#else
        if
        :: abandoning && !swept -> break     /* the sweep looks again after it */
        :: else ->
            if
            :: q > 0 ->
                tryTakeTurn(again);
                if
                :: again -> skip             /* took the turn back: run on */
                :: else -> break
                fi
            :: else -> break
            fi
        fi
#endif
    :: atomic { !(abandoning && !swept) && q > 0 -> q-- } ->   /* a successful dequeue */
        running++;
        assert(running <= MAXTURNS);
#ifdef BLOCKING
        if
        :: skip
        :: true ->
end_blocked:
            false                            /* the item never returns: its turn stays held */
        fi;
#endif
        running--;
        ran++;
        if
        :: ran >= QUANTUM ->
            if
            :: q > 0 -> poolQueue++; break   /* yield: the turn, still held, goes back on the pool */
            :: q > 0 -> ran = 0              /* nothing else queued on the pool (HasQueuedWork): it runs on */
            :: else -> ran = 0
            fi
        :: else -> skip
        fi
    od
}

proctype Worker() {
end_idle:
    do
    :: atomic { poolQueue > 0 -> poolQueue-- } ->
        runTurn()
    od
}

#ifdef ABANDON
proctype Abandon() {
    bool took;
    abandoning = true;                       /* Interlocked.Exchange */
    do
    :: atomic { q > 0 -> q--; handedBack++ }
    :: atomic { q == 0 -> break }
    od;
    swept = true;                            /* Interlocked.Exchange: a full fence before the look */
#ifndef BROKEN_SWEEP
    if
    :: q > 0 ->
        tryTakeTurn(took);
        if
        :: took -> poolQueue++
        :: else -> skip
        fi
    :: else -> skip
    fi
#endif
}
#endif

/* Runs when nothing else can move: an item left in the queue must have a turn held for it. */
active proctype Check() {
    timeout -> assert(q == 0 || turns > 0)
}

init {
    byte p;
    atomic {
        p = 0;
        do
        :: p < PRODUCERS -> run Producer(); p++
        :: else -> break
        od;
        p = 0;
        do
        :: p < WORKERS -> run Worker(); p++
        :: else -> break
        od;
#ifdef ABANDON
        run Abandon();
#endif
    }
}

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
 * With -DBATCH each producer queues its PUSHES items as one batch (SlimThreadPoolGroup.QueueBatch): every item
 * enqueued, then a turn taken for each until one is refused.
 * With -DABANDON a process runs the group's abandon (GroupTurns.Abandon): it raises `abandoning`, sweeps the queue,
 * raises `swept`, and looks at the queue once more (taking a turn for an item, else dropping the queue a turn
 * that ended mid-sweep left); turns that see the abandon before the sweep give their turn back
 * without a re-check (EndTurn).
 * The queue exists only while it holds items: `cur` names the queue in GroupTurns._queue (0: none), each queue has its
 * own count and retired flag. A producer reads `cur`, installs a fresh queue if there is none (a compare-and-swap from
 * 0), and enqueues into the queue it read; the enqueue fails if that queue was retired, and the producer then clears
 * `cur` if it still names that queue and tries again. A turn that finds the queue empty retires it if it is still
 * empty (LockFreeQueue.TryRetire: one compare-and-swap on the ring's tail, the word every producer's claim swaps
 * and every growth's freeze changes, so retire and enqueue are modelled as atomic steps on the queue) and clears `cur`
 * (a compare-and-swap from that queue): after it gave its turn back and looked again, either at once (off the pool's
 * workers) or later, by its worker (DeferredQueueDrops: when the worker parks, or evicts the group for another). The
 * later drop is the `Dropper` process, which drops the queue `cur` names at any moment, a turn held or not, up to DROPS
 * times; a turn's own drop is optional (the model takes either). The checks at the end add: no item is left in a
 * queue that `cur` no longer names. Not modelled: the queue's rings and their growth (a queue is one counter here);
 * that a producer about to grow a full ring sees a retire that came first (LockFreeSegment.FreezeUnlessRetired) is
 * argued in LockFreeQueue and tested (LockFreeRetireTests, which caught it missing).
 * Broken variants Spin must reject: -DBROKEN (EndTurn gives the turn back without looking at the queue again),
 * -DBROKEN_SWEEP (the abandon does not look at the queue after its sweep), -DBROKEN_DROP (the turn drops the queue
 * after seeing it empty, without retiring it, so a producer that read it earlier enqueues into a dropped queue).
 *
 * What is the code, step by step: the producer's read of `cur`, its install, its publish (the lock-free queue's
 * compare-and-swap, a full fence), its separate read of `turns` and its compare-and-swap (TryTakeTurn); the turn's read
 * of `cur` and failed dequeue, its retire and clear, its decrement (a full fence), then separate reads of `abandoning`,
 * `swept`, `cur` and that queue's count. What is abstracted: the pool runs a queued turn
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

#ifndef DROPS
#define DROPS 2              /* drops the Dropper may make (a worker's deferred drops) */
#endif

#define MAXQ 8               /* queue ids 1..MAXQ-1; 0 is "no queue" */
byte cur = 0;                /* GroupTurns._queue: the queue installed now, 0 when none */
byte lastId = 0;             /* the last queue id handed out */
byte cnt[MAXQ];              /* items in each queue, accepted, not taken */
bool retired[MAXQ];          /* LockFreeSegment: the retired bit in the last ring's tail */
byte turns = 0;              /* GroupTurns._turns: turns held (queued on the pool or running) */
byte poolQueue = 0;          /* turn entries queued on the pool */
byte running = 0;            /* the group's items running now */
bool abandoning = false;
bool swept = false;
byte handedBack = 0;

/* The queue now installed holds an item (one atomic look: used only where the code's choice is free anyway). */
#define QUEUED (cur != 0 && cnt[cur] > 0)

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

/* GroupTurns.DropQueueIfEmpty: retire the queue `cur` names if it is empty (TryRetire: the freeze sees every claim
 * before it; later ones fail), then clear `cur` if it still names it. Safe at any time: run by a turn or by the Dropper. */
inline dropIfEmpty(dq) {
    dq = cur;
    if
    :: dq != 0 ->
#ifdef BROKEN_DROP
        if
        :: cnt[dq] == 0 ->                   /* looks empty: dropped without retiring it */
            atomic { if :: cur == dq -> cur = 0 :: else -> skip fi }
        :: else -> skip
        fi
#else
        atomic {
            if
            :: cnt[dq] == 0 -> retired[dq] = true
            :: else -> skip
            fi
        }
        if
        :: retired[dq] -> atomic { if :: cur == dq -> cur = 0 :: else -> skip fi }
        :: else -> skip
        fi
#endif
    :: else -> skip
    fi
}

/* GroupTurns.Enqueue: read the field, install a queue where there is none, enqueue unless that queue was retired. */
inline enqueue() {
    bool done = false;
    byte myq;
    do
    :: !done ->
        myq = cur;
        if
        :: myq == 0 ->
            atomic {                         /* InstallQueue: a compare-and-swap from null; the loser uses the winner's */
                if
                :: cur == 0 -> lastId++; assert(lastId < MAXQ); cur = lastId
                :: else -> skip
                fi;
                myq = cur
            }
        :: else -> skip
        fi;
        atomic {                             /* TryEnqueue: the claim, or a refusal once the queue is retired */
            if
            :: !retired[myq] -> cnt[myq]++; done = true
            :: else -> skip
            fi
        }
        if
        :: !done -> atomic { if :: cur == myq -> cur = 0 :: else -> skip fi }   /* clear the retired queue */
        :: else -> skip
        fi
    :: else -> break
    od
}

proctype Producer() {
    byte i = 0;
    bool took;
#ifdef BATCH
    /* SlimThreadPoolGroup.QueueBatch (GroupTurns.EnqueueBatch): every item enqueued first (into the queue the field
       holds, or the one replacing it once that one is retired), then a turn for each item until one is refused.
       Item by item, the claims here include the batch's single claim of several cells. */
    do
    :: i < PUSHES -> enqueue(); i++
    :: else -> break
    od;
    i = 0;
    do
    :: i < PUSHES ->
        tryTakeTurn(took);
        if
        :: took -> poolQueue++; i++
        :: else -> break
        fi
    :: else -> break
    od;
    i = PUSHES;
#endif
    do
    :: i < PUSHES ->
        enqueue();                           /* publish: the claim's compare-and-swap, a full fence */
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
    byte tq;
    do
    :: tq = cur;                             /* TryTake reads the field, then dequeues from that queue */
        if
        :: atomic { !(abandoning && !swept) && tq != 0 && cnt[tq] > 0 -> cnt[tq]-- } ->   /* a successful dequeue */
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
                :: QUEUED -> poolQueue++; break  /* yield: the turn, still held, goes back on the pool */
                :: QUEUED -> ran = 0             /* nothing else queued on the pool (HasQueuedWork): it runs on */
                :: else -> ran = 0
                fi
            :: else -> skip
            fi
        :: else ->                           /* IsSweeping, or a failed dequeue (separate reads) */
            turns--;                             /* EndTurn: Interlocked.Decrement, a full fence */
#ifdef BROKEN
            break;
#else
            if
            :: abandoning && !swept -> break     /* the sweep looks again after it */
            :: else ->
                tq = cur;                        /* IsQueueEmpty: the field, then that queue's tail */
                if
                :: tq != 0 && cnt[tq] > 0 ->
                    tryTakeTurn(again);
                    if
                    :: again -> skip             /* took the turn back: run on */
                    :: else -> break
                    fi
                :: else ->
                    if
                    :: dropIfEmpty(tq)           /* off the pool's workers: DropQueueIfEmpty now */
                    :: skip                      /* on a worker: deferred (the Dropper) */
                    fi;
                    break
                fi
            fi
#endif
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

/* A worker's deferred drops (DeferredQueueDrops): at any moment, whatever the turns and producers are doing. */
proctype Dropper() {
    byte n = 0;
    byte dq;
end_dropper:
    do
    :: n < DROPS -> dropIfEmpty(dq); n++
    :: else -> break
    od
}

#ifdef ABANDON
proctype Abandon() {
    bool took;
    byte aq;
    abandoning = true;                       /* Interlocked.Exchange */
    do
    :: aq = cur;                             /* TryTake: the field, then a dequeue from that queue */
        if
        :: atomic { aq != 0 && cnt[aq] > 0 -> cnt[aq]--; handedBack++ }
        :: else -> break
        fi
    od;
    swept = true;                            /* Interlocked.Exchange: a full fence before the look */
#ifndef BROKEN_SWEEP
    aq = cur;
    if
    :: aq != 0 && cnt[aq] > 0 ->
        tryTakeTurn(took);
        if
        :: took -> poolQueue++
        :: else -> dropIfEmpty(aq)
        fi
    :: else -> dropIfEmpty(aq)            /* the drop a turn that ended mid-sweep left undone */
    fi
#endif
}
#endif

/* Runs when nothing else can move: an item left in the queue must have a turn held for it, and no item may be left in
 * a queue the group no longer holds. */
active proctype Check() {
    byte k;
    timeout ->
    assert(!QUEUED || turns > 0);
    k = 1;
    do
    :: k < MAXQ -> assert(k == cur || cnt[k] == 0); k++
    :: else -> break
    od
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
        run Dropper();
#ifdef ABANDON
        run Abandon();
#endif
    }
}

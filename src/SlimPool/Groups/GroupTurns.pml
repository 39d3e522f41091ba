/*
 * Promela model of a group's turns (GroupTurns*.cs): producers that queue an item and take a turn if one is free,
 * turns that run the group's items on the pool's workers, give the turn back with a re-check when the queue is empty,
 * yield at the end of a quantum (or run on, when the pool has nothing else queued: the model takes either), and the
 * group's abandon with its sweep. Checked by eng/check-models.sh with Spin.
 *
 * Properties:
 *  - at most MAXTURNS of the group's items run at once (asserted at every start of an item);
 *  - no item is stranded: when nothing can move any more, an item still in the group's queue has a turn held for it
 *    (queued on the pool, or running an item that never returns), asserted by a check that runs at Spin's timeout;
 *  - with -DDRAIN, a drain runs what was queued before it: the `Drain` process begins at any moment and notes the
 *    items whose queue calls had returned; at any later moment when no turn is queued on the pool and no worker runs
 *    one (when a drain's workers may leave: ExitBarrier.pml), each of those items was taken, run or handed back.
 *    Producers still inside their calls are not waited for (their items may run late, on their own threads). A
 *    producer that takes a turn counts itself a publisher in the same swap, publishes, then leaves the count
 *    (GroupTurns.PublishTaken); a turn's end moves a generation on as it gives the turn back (EndTurn); a producer
 *    whose take fails with no more turns than publishers waits for more turns than publishers, or a later generation
 *    (WaitForPublishedTurn); so does a turn that ends, sees an item and finds the turn taken (EndTurn), and the
 *    abandon's look after its sweep. A wait that never ends is an invalid end state. Not checked with -DABANDON: an
 *    abandon in flight that takes a turn for such an item publishes it as a late producer does, after the drain's
 *    workers may have left.
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
 * -DBROKEN_NOWAIT with -DDRAIN (a producer whose take fails returns at once: its item may ride on a turn not yet
 * published, which a drain's workers do not see), -DBROKEN_ENDWAIT with -DDRAIN (a turn that ends, sees an item and
 * finds the turn taken leaves at once, the item to a turn not yet published), -DBROKEN_PUBGEN with -DDRAIN (the
 * publisher's add moves the generation too: a waiter takes a publish whose turn already ended for a turn's end),
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
byte pubs = 0;               /* the publishers counted in GroupTurns._turns (bits 32 to 47) */
/* The generation in GroupTurns._turns (bits 48 to 63), which only a process that read it compares with its copy: kept
 * as whether it moved since each such process read it (a bit a process, while it holds a copy; the code's 16 bits
 * wrap only after 65,536 turn ends, which the model leaves out), so that states do not differ by the count itself. */
int watching = 0;            /* the processes that hold a copy of the generation */
int moved = 0;               /* those whose copy is older than the generation */
#define ME (1 << _pid)
#ifdef DRAIN
byte enq = 0;                /* ghost: items enqueued, in the group's order (a queue is replaced only once empty) */
byte taken = 0;              /* ghost: items taken, run or handed back, in the same order */
byte returned = 0;           /* ghost: a bit for each item (by its place in that order) whose queue call returned */
byte busy = 0;               /* ghost: workers running a turn */
#define GHOST(x) x
#else
#define GHOST(x) skip
#endif

/* The queue now installed holds an item (one atomic look: used only where the code's choice is free anyway). */
#define QUEUED (cur != 0 && cnt[cur] > 0)

/* GroupTurns.TryTakeTurn: a read of the word, then a compare-and-swap below the limit; a producer that will publish
 * the turn (pub) counts itself a publisher in the same swap. The word's last read is left in st and sp (and the generation's, in watching and moved). */
inline tryTakeTurn(took, pub, st, sp) {
    byte seen;
    took = false;
    atomic { st = turns; sp = pubs; watching = watching | ME; moved = moved & ~ME };
    seen = st;
    do
    :: seen < MAXTURNS ->
        atomic {
            if
            :: turns == seen -> turns++; pubs = pubs + pub; took = true
            :: else -> seen = turns; st = turns; sp = pubs; moved = moved & ~ME
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
inline enqueue(mine) {
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
            :: !retired[myq] -> cnt[myq]++; GHOST(mine = mine | (1 << enq); enq++); done = true
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

/* GroupTurns.PublishTaken: the turn onto the pool (QueueAccepted, a full fence after), then one add that leaves the
 * publishers' count. */
inline publishTaken() {
    poolQueue++;
#ifndef BROKEN_PUBGEN
    pubs--
#else
    atomic { pubs--; moved = moved | watching }   /* the add moves the generation too */
#endif
}

/* The word's copy is dead once used: cleared, so that states differing only in it are one. */
inline forget(st, sp) {
    d_step { st = 0; sp = 0; watching = watching & ~ME; moved = moved & ~ME }
}

/* GroupTurns.WaitForPublishedTurn, after a failed take whose read saw no more turns than publishers: waits (blocked,
 * as a spin that sees no change) for a read of the word with more turns than publishers, or a later generation (a turn
 * ended since). */
inline waitForPublished(st, sp) {
#ifndef BROKEN_NOWAIT
    if
    :: st <= sp -> atomic { turns > pubs || (moved & ME) != 0 }
    :: else -> skip
    fi;
#endif
    forget(st, sp)
}

proctype Producer() {
    byte i = 0;
    bool took;
    byte mine, st, sp;
#ifdef BATCH
    /* SlimThreadPoolGroup.QueueBatch (GroupTurns.EnqueueBatch): every item enqueued first (into the queue the field
       holds, or the one replacing it once that one is retired), then a turn for each item until one is refused.
       Item by item, the claims here include the batch's single claim of several cells. */
    do
    :: i < PUSHES -> enqueue(mine); i++
    :: else -> break
    od;
    i = 0;
    do
    :: i < PUSHES ->
        tryTakeTurn(took, 1, st, sp);
        if
        :: took -> forget(st, sp); publishTaken(); i++
        :: else -> break
        fi
    :: else -> break
    od;
    if
    :: i == 0 -> waitForPublished(st, sp)   /* no turn of its own published: it waits as a single item does */
    :: else -> forget(st, sp)
    fi;
    GHOST(returned = returned | mine);              /* the call returns */
    i = PUSHES;
#endif
    do
    :: i < PUSHES ->
        GHOST(mine = 0);
        enqueue(mine);                       /* publish: the claim's compare-and-swap, a full fence */
        tryTakeTurn(took, 1, st, sp);
        if
        :: took -> forget(st, sp); publishTaken()   /* a turn entry on the pool */
        :: else -> waitForPublished(st, sp)
        fi;
        GHOST(returned = returned | mine);          /* the call returns */
        i++
    :: else -> break
    od
}

/* One turn, as GroupTurns.RunTurn runs it on a worker. */
inline runTurn() {
    byte ran = 0;
    bool again;
    byte tq, st, sp;
    do
    :: tq = cur;                             /* TryTake reads the field, then dequeues from that queue */
        if
        :: atomic { !(abandoning && !swept) && tq != 0 && cnt[tq] > 0 -> cnt[tq]--; GHOST(taken++) } ->   /* a successful dequeue */
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
            atomic { turns--; moved = moved | watching }   /* EndTurn: one add, a full fence: a turn fewer, a generation more */
#ifdef BROKEN
            break;
#else
            if
            :: abandoning && !swept -> break     /* the sweep looks again after it */
            :: else ->
                tq = cur;                        /* IsQueueEmpty: the field, then that queue's tail */
                if
                :: tq != 0 && cnt[tq] > 0 ->
                    tryTakeTurn(again, 0, st, sp);   /* runs on: no publish */
                    if
                    :: again -> forget(st, sp)   /* took the turn back: run on */
#ifndef BROKEN_ENDWAIT
                    :: else -> waitForPublished(st, sp); break   /* left to a turn held: once one is published */
#else
                    :: else -> forget(st, sp); break
#endif
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
    :: atomic { poolQueue > 0 -> poolQueue--; GHOST(busy++) } ->
        runTurn();
        GHOST(busy--)
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
    byte aq, st, sp;
    abandoning = true;                       /* Interlocked.Exchange */
    do
    :: aq = cur;                             /* TryTake: the field, then a dequeue from that queue */
        if
        :: atomic { aq != 0 && cnt[aq] > 0 -> cnt[aq]--; handedBack++; GHOST(taken++) }
        :: else -> break
        fi
    od;
    swept = true;                            /* Interlocked.Exchange: a full fence before the look */
#ifndef BROKEN_SWEEP
    aq = cur;
    if
    :: aq != 0 && cnt[aq] > 0 ->
        tryTakeTurn(took, 1, st, sp);
        if
        :: took -> forget(st, sp); publishTaken()
        :: else -> waitForPublished(st, sp); dropIfEmpty(aq)
        fi
    :: else -> dropIfEmpty(aq)            /* the drop a turn that ended mid-sweep left undone */
    fi
#endif
}
#endif

/* A drain begins at any moment (its first step) and notes the items whose calls returned; its workers may leave at any
 * later moment with no turn queued on the pool and none running, and then each of those items must have been taken
 * (items are taken in their order, so the first `taken` ones are). */
#ifdef DRAIN
proctype Drain() {
    byte covered;
    covered = returned;
end_drain:
    atomic { poolQueue == 0 && busy == 0 -> assert(covered < (1 << taken)) }
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
#ifdef DRAIN
        run Drain();
#endif
#ifdef ABANDON
        run Abandon();
#endif
    }
}

/*
 * Promela model of SpinThenParkIdleWait (SpinThenParkIdleWait.cs) and the producer side of
 * SlimThreadPool.TryEnqueue. Checked by eng/check-models.sh with Spin:
 *   - no execution gets stuck with an item queued while every worker is parked (the lost wake-up);
 *   - no herd: a wake is issued only while no worker is searching (asserted at every wake), each push makes
 *     at most one wake, and a chain wake needs an item taken by a searching worker, so wakes never exceed
 *     twice the pushes (asserted). A woken worker can still find nothing, when an awake worker took the item
 *     first or a producer's check went stale; the model shows that this cannot be driven to one wake per push
 *     by re-reading the queue (a read before the wake is always a snapshot), so the bound we keep is 2.
 * With -DBROKEN the worker's re-check after announcing itself parked is removed, and Spin must find the
 * lost wake-up: that keeps the check honest.
 * With -DSPARES=n the last n workers are spare workers: a spare's park may time out at any moment, and it then
 * takes itself off the parked stack and retires (exits), unless a waker popped it first, in which case it takes
 * that waker's Unpark and goes on (WaitForWork's timed path, TryUnannounce(stayAsSearcher: false)). The same
 * properties must hold with workers leaving this way; with -DBROKEN_RETIRE a popped spare retires anyway
 * (dropping the wake it was given), and Spin must find the stranded item. A spare that does retire looks at the
 * queue once more first (SlimThreadPool.WorkerMain) and stays if it is not empty.
 * With -DBLOCKING an item may block for ever (never return, tell nobody). The property is then that no item is left
 * queued while a worker is parked (the blocked workers are the starvation guard's business, StarvationGuard.pml).
 * With -DWS the queue is the work-stealing one: a worker that took an item may move a batch more from the shared
 * queue into its own batch (one or two here): the batch leaves the shared queue in one step and arrives in its
 * batch in another (RefillBatch.Fill's exchange); in between it is in neither place and a look (IsEmpty) misses it. The
 * refill then ends like a publish (Publisher.OnRefilled: fence, then the producer's wake check); with
 * -DBROKEN_REFILL it does not, and with blocking items Spin must find the moved item stranded behind a worker that
 * parked during the transit. A steal may also leave a lone item to its owner for a moment
 * (WorkStealingDeque.TryStealAfterOwnerGrace), so under -DWS TryDequeue may fail with items queued, up to DECLINES
 * times (default 1); the code fails only once the owner took the item, which this over-approximates.
 * With -DBATCH each producer queues its PUSHES items as one batch (SlimThreadPool.QueueBatch): all published in one
 * step, then one wake check; the workers' chain must wake a worker for each item that needs one.
 * With -DSTOP a stopper sets IsStopping and wakes every parked worker (IdleWait.Stop, WakeAll) once the producers are
 * done; workers exit when they see it and the queue empty. Then no worker may stay parked.
 * With -DSLOTS the work-stealing queue's slots (the remarks' "Slots"): a worker that took an item may push an entry onto
 * its own slot (WorkerQueues.Push: plain stores, then the publisher's full fence and wake check), then return and take
 * it itself, or block for ever with it there (needs -DBLOCKING). The spin and the re-check look at the items only; a
 * worker's look takes its own slot first, then an item, then a sibling's slot: at once if that sibling is blocked (its
 * grace runs out), or maybe not if it is not (it may take the entry itself first). A parking worker that found nothing
 * watches (Watch): marked watching under the lock if still on the stack, then, each watch, a wake or the watch's end:
 * an entry of a blocked owner did not move, so it leaves the stack and searches; a held entry may have moved (its owner
 * runs), and it watches on; or it stops watching (its looks quiet, or a spare's budget spent): unmarked under the lock,
 * then a look at the whole queue, the slots included. The producer's wake check wakes for an item as before, and for a
 * slot's entry (a separate read of the slots) only while the state shows nobody watching. The property at quiescence:
 * no slot holds an entry while a worker is parked (a watcher is never quiescent: its watch can always end). With
 * -DBROKEN_WATCH the look after a watch stops is left out, and with -DBROKEN_SLOTWAKE the producer never wakes anyone for
 * a slot's entry: Spin must find an entry stranded behind its blocked owner in each. With -DSPARES=n as well, a spare's
 * watch may end with its idle time spent: it leaves, waking a parked worker to watch in its place if a slot holds an
 * entry. That hand-over matters only with a third worker parked beside the blocked owner and the spare, a size whose
 * search does not finish in the script's budget (more than 400 s and 12 GB); the checked size shows the spare's leaving
 * strands nothing and its wakes stay bounded.
 *
 * Memory model: Promela executes each statement atomically in one global order (sequential consistency).
 * The C# code makes the accesses that matter sequentially consistent with full fences: the producer's
 * Interlocked.MemoryBarrier between publishing an item and reading _state (or, for an item queued from outside
 * onto the lock-free shared queue, the compare-and-swap that claims its cell: it is both the publication that
 * IsEmpty sees and a full fence, see IFencedEnqueue), and the worker's Interlocked.Add on _state before its
 * re-check. Sections under _lock are modelled as atomic blocks (the lock excludes the others).
 * The queue is a counter: TryDequeue is linearizable (IWorkQueue contract); IsEmpty too, except under -DWS.
 * The chain reads the state word once (the value Interlocked.Add returns) and the queue in a separate load, as the
 * code does; the producer reads the state word once, then the queue.
 */

#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef PRODUCERS
#define PRODUCERS 2
#endif
#ifndef PUSHES
#define PUSHES 2            /* items per producer */
#endif
#ifndef SPARES
#define SPARES 0            /* how many of the WORKERS are spares that may retire */
#endif

byte items = 0;                /* items in the queue */
byte searching = 0;            /* _state & SearchingMask */
byte parked = 0;               /* _state >> 16 */
byte stack[WORKERS];           /* _parkedStack */
byte top = 0;                  /* _parkedTop */
bool permit[WORKERS];          /* Parker._permit, one per worker */
byte pushes = 0;
byte wakes = 0;                /* all wakes: producers', refills' and chains' */
byte transit = 0;              /* -DWS: taken from the shared queue, not yet in the taker's batch */
#ifndef DECLINES
#define DECLINES 1          /* -DWS: how many dequeues may fail with items queued (a steal's grace) */
#endif
byte declines = 0;
byte producerWakes = 0;
byte producersDone = 0;
byte retired = 0;
byte refills = 0;
byte exited = 0;
bool stopping = false;
#ifndef SLOTPUSHES
#define SLOTPUSHES 1        /* -DSLOTS: how many slot pushes in all */
#endif
bool held[WORKERS];            /* -DSLOTS: the worker's slot holds an entry */
bool blocked[WORKERS];         /* -DSLOTS: the worker blocked for ever in an item */
bool watchingMe[WORKERS];      /* Slot.IsWatching, under _lock */
byte watching = 0;             /* (_state >> 16) & 0xFFFF */
byte slotPushes = 0;

/* Whether some slot holds an entry (a read of every slot's version, one at a time in the code: WORKERS is small and the
   reads race only with pushes and takes that the model orders anyway). */
#define anyHeld (held[0] || (WORKERS > 1 && held[1]) || (WORKERS > 2 && held[2]))
#define anyHeldBlocked ((held[0] && blocked[0]) || (WORKERS > 1 && held[1] && blocked[1]) || (WORKERS > 2 && held[2] && blocked[2]))

/* SpinThenParkIdleWait.OnWorkQueued, after a publish and a full fence (a producer's, or a refill's): one load of the
   state word, then a separate look at the queue. */
inline onWorkQueued(isProducer) {
    atomic { seenSearching = searching; seenParked = parked; seenWatching = watching };
    if
    :: seenSearching == 0 && seenParked > 0 ->
        if
        :: items > 0 ->
            if
            :: isProducer -> producerWakes++
            :: else -> skip
            fi;
            wakeOne()
#if defined(SLOTS) && !defined(BROKEN_SLOTWAKE)
        :: items == 0 && seenWatching == 0 && anyHeld -> wakeOne()   /* IsWakeDue: a slot's entry, nobody watching */
#endif
        :: else -> skip
        fi
    :: else -> skip
    fi
}

/* SpinThenParkIdleWait.TryUnannounce, under _lock: if `me` is still on the parked stack, take it off (keeping
   the others' order) and stop counting it as parked; a worker that stays (re-check) becomes a searcher again,
   a retiring spare counts as neither. `found` says whether it was there. */
inline tryUnannounce(me, stayAsSearcher, found) {
    atomic {
        i = 0;
        found = false;
        do
        :: i < top && stack[i] == me -> found = true; break
        :: i < top && stack[i] != me -> i++
        :: i >= top -> break
        od;
        if
        :: found ->
            do
            :: i + 1 < top -> stack[i] = stack[i + 1]; i++
            :: else -> break
            od;
            top--; parked--;
            if
            :: stayAsSearcher -> searching++
            :: else -> skip
            fi;
            if
            :: watchingMe[me] -> watchingMe[me] = false; watching--   /* StopWatching */
            :: else -> skip
            fi
        :: else -> skip
        fi
    }
}

/* SpinThenParkIdleWait.TrySetWatching, under _lock: if `me` is still on the parked stack, mark it watching or not. */
inline trySetWatching(me, on, found) {
    atomic {
        i = 0;
        found = false;
        do
        :: i < top && stack[i] == me -> found = true; break
        :: i < top && stack[i] != me -> i++
        :: i >= top -> break
        od;
        if
        :: found && on -> watchingMe[me] = true; watching++
        :: found && !on -> watchingMe[me] = false; watching--
        :: else -> skip
        fi
    }
}

/* SpinThenParkIdleWait.WakeOne: under _lock re-read the state, pop the last parked worker, count it as
   searching; then, outside the lock, Unpark it. */
inline wakeOne() {
    byte target = 255;
    atomic {
        if
        :: searching == 0 && top > 0 ->
            assert(searching == 0);    /* no herd: never wake while someone is searching */
            top--; target = stack[top]; parked--; searching++; wakes++;
            if
            :: watchingMe[target] -> watchingMe[target] = false; watching--   /* StopWatching */
            :: else -> skip
            fi
        :: else -> skip
        fi
    }
    if
    :: target != 255 -> permit[target] = true        /* Parker.Unpark */
    :: else -> skip
    fi
}

proctype Producer() {
    byte i = 0;
    byte seenSearching, seenParked, seenWatching;
#ifdef BATCH
    /* SlimThreadPool.QueueBatch: the whole batch (one chunk) claimed at once with its last compare-and-swap a full
       fence, then one wake check; a woken worker's chain wakes the next while items wait. */
    atomic { items = items + PUSHES; pushes = pushes + PUSHES };
    onWorkQueued(true);
    i = PUSHES;
#endif
    do
    :: i < PUSHES ->
        /* Publisher.Publish: EnqueueThenFence (publish, then a full fence) */
        atomic { items++; pushes++ };
        /* OnWorkQueued: wake only if nobody is searching and someone is parked, and (a separate read) the queue
           still holds something: a producer delayed here must not wake a worker for an item that a chain wake
           already covered and an awake worker already took. */
        onWorkQueued(true);
        i++
    :: else -> break
    od;
    producersDone++
}

#ifdef STOP
/* IdleWait.Stop once the producers are done: IsStopping, then WakeAll (pop everyone under _lock, count them
   searching, unpark each). */
active proctype Stopper() {
    byte target;
    producersDone == PRODUCERS;
    stopping = true;
    do
    :: atomic {
        if
        :: top > 0 -> top--; target = stack[top]; parked--; searching++;
            if
            :: watchingMe[target] -> watchingMe[target] = false; watching--
            :: else -> skip
            fi
        :: else -> break
        fi
       };
       permit[target] = true
    od
}
#endif

proctype Worker(byte me) {
    bool isSearching = true;           /* Slot.IsSearching, owned by this worker */
    byte i;
    byte moving;                       /* -DWS: items of our refill not yet in our batch */
    bool found;
    byte seenSearching, seenParked, seenWatching;
    byte v;
    searching++;                       /* OnWorkerStarted */
loop:
    /* SlimThreadPool.WorkerMain: _queue.TryDequeue */
    atomic {
        if
#ifdef SLOTS
        :: held[me] -> held[me] = false; found = true          /* its own slot first */
#endif
        :: items > 0 -> items--; found = true
#ifdef WS
        :: items > 0 && declines < DECLINES -> declines++; found = false   /* a steal's grace (see the top) */
#endif
        :: else -> found = false
        fi
    }
#ifdef SLOTS
    /* then a sibling's slot (TrySteal's second loop): taken once its grace runs out if its owner is blocked; otherwise
       the owner may take it first */
    if
    :: !found ->
        select (v : 0 .. WORKERS - 1);
        atomic {
            if
            :: v != me && held[v] && blocked[v] -> held[v] = false; found = true
            :: v != me && held[v] && !blocked[v] -> held[v] = false; found = true
            :: v != me && held[v] && !blocked[v] -> skip                       /* the owner may take it first */
            :: else -> skip
            fi
        }
    :: else -> skip
    fi;
#endif
    if
    :: found ->
#ifdef WS
        /* WorkStealingWorkQueue.RefillFrom: a batch (here one or two items) leaves the shared queue in one step (one
           compare-and-swap on its head), then enters our batch in one step (RefillBatch.Fill's exchange) */
        if
        :: atomic { items > 0 -> items--; transit++; moving = 1;
                    if
                    :: items > 0 -> items--; transit++; moving = 2
                    :: true -> skip
                    fi };
            atomic { transit = transit - moving; items = items + moving; moving = 0 };
            refills++;
#ifndef BROKEN_REFILL
            onWorkQueued(false)        /* Publisher.OnRefilled: a full fence, then the wake check */
#else
            skip
#endif
        :: true -> skip
        fi;
#endif
        /* OnWorkTaken: leave the searching state; the last searcher passes the search on (chain). The state comes
           back from the interlocked add in one load; the queue is a separate load. */
        if
        :: isSearching ->
            isSearching = false;
            atomic { searching--; seenSearching = searching; seenParked = parked; seenWatching = watching };
            if
            :: seenSearching == 0 && seenParked > 0 ->
                if
                :: items > 0 -> wakeOne()
#ifdef SLOTS
                :: items == 0 && seenWatching == 0 && anyHeld -> wakeOne()
#endif
                :: else -> skip
                fi
            :: else -> skip
            fi
        :: else -> skip
        fi;
#ifdef SLOTS
        /* the item may push an entry onto this worker's slot: plain stores, then the publisher's fence and wake check */
        if
        :: !held[me] && slotPushes < SLOTPUSHES ->
            atomic { held[me] = true; slotPushes++ };
            onWorkQueued(false)
        :: true -> skip
        fi;
#endif
#ifdef BLOCKING
        if
        :: true -> goto loop           /* Execute(item): it returns */
        :: true ->
            blocked[me] = true;
end_blocked:
            false                      /* or it blocks for ever */
        fi
#else
        goto loop                      /* Execute(item) */
#endif
    :: else -> skip
    fi;
    /* WorkerMain: a stopping pool's worker reads IsStopping, then looks at the queue once more, and exits if empty */
    if
    :: stopping ->
        if
        :: items > 0 -> goto loop
        :: else -> goto exit
        fi
    :: else -> skip
    fi;

    /* WaitForWork: become a searcher */
    if
    :: !isSearching -> isSearching = true; searching++
    :: else -> skip
    fi;
    /* the spin phase: it may see work (or IsStopping) and return, or give up at any moment */
    if
    :: items > 0 || stopping -> goto loop
    :: true -> skip
    fi;
    /* announce: push ourselves and move from searching to parked, under _lock, with an interlocked add */
    atomic { stack[top] = me; top++; parked++; searching-- };
#ifndef BROKEN
    /* re-check after announcing: the read that pairs with the producer's publish + fence */
    if
    :: items > 0 || stopping ->
        /* TryUnannounce: still on the stack? take ourselves off and stay a searcher */
        tryUnannounce(me, true, found);
        if
        :: found -> goto loop
        :: else -> skip                /* a waker popped us: consume its Unpark below */
        fi
    :: else ->
#ifdef SLOTS
        /* Watch */
        trySetWatching(me, true, found);
        if
        :: found ->
watch:
            if
            :: atomic { permit[me] -> permit[me] = false }; goto loop      /* woken: the waker unmarked us */
            :: atomic { !permit[me] -> skip };                             /* a watch passed */
                if
                :: anyHeldBlocked ->
                    /* an entry that did not move for the whole watch: search (AnySlotEntryUnmoved) */
                    tryUnannounce(me, true, found);
                    if
                    :: found -> goto loop
                    :: else -> skip            /* popped: consume the Unpark below */
                    fi
                :: anyHeld -> goto watch       /* entries that came and went: watch on */
                :: me >= WORKERS - SPARES ->
                    /* a spare's idle time spent: stop watching; stay for an item, else leave, handing the watch to a
                       parked worker if a slot holds an entry (WatchEnd.Leave), and retire if no item came meanwhile
                       (WorkerLoop: IsEmptyForALeavingSpare) */
                    trySetWatching(me, false, found);
                    if
                    :: found ->
                        if
                        :: items > 0 || stopping ->
                            tryUnannounce(me, true, found);
                            if
                            :: found -> goto loop
                            :: else -> skip
                            fi
                        :: else ->
                            tryUnannounce(me, false, found);
                            if
                            :: found ->
                                if
                                :: anyHeld -> wakeOne()
                                :: else -> skip
                                fi;
                                isSearching = false;
                                if
                                :: items > 0 -> goto loop
                                :: else -> retired++; goto done
                                fi
                            :: else -> skip    /* popped: consume the Unpark below */
                            fi
                        fi
                    :: else -> skip            /* popped: consume the Unpark below */
                    fi
                :: true ->
                    /* quiet looks: stop watching, then look at the whole queue */
                    trySetWatching(me, false, found);
                    if
                    :: found ->
#ifndef BROKEN_WATCH
                        if
                        :: items > 0 || anyHeld || stopping ->
                            tryUnannounce(me, true, found);
                            if
                            :: found -> goto loop
                            :: else -> skip
                            fi
                        :: else -> skip
                        fi
#else
                        skip
#endif
                    :: else -> skip            /* popped: consume the Unpark below */
                    fi
                fi
            fi
        :: else -> skip                        /* popped: consume the Unpark below */
        fi
#else
        skip
#endif
    fi;
#endif
    /* DeferredQueueDrops: a worker that keeps group queues parks first for what is left of the keep time: a permit
       ends that park, or it times out (only while no permit is there), drops the queues (which queues nothing and
       wakes nobody) and parks below, still announced. A worker that keeps none skips it: the timeout branch at once. */
    if
    :: atomic { permit[me] -> permit[me] = false }; goto loop
    :: atomic { !permit[me] -> skip }
    fi;
    /* Parker.Park: block until a permit, consume it. The waker already counted us as searching. A spare's
       park may instead time out (only while no permit is there: Park(ms) returns true if one is). */
end_park:
    if
    :: atomic { permit[me] -> permit[me] = false }; goto loop
    :: atomic { me >= WORKERS - SPARES && !permit[me] -> skip };
        /* timed out: still on the stack, leave it and retire; popped meanwhile, take the Unpark on its way */
        tryUnannounce(me, false, found);
#ifdef BROKEN_RETIRE
        found = true;                  /* retire even when a waker popped us: its wake is lost with us */
#endif
        if
        :: found ->
            isSearching = false;
            /* WorkerMain: one more look at the queue (the unannounce was a full fence); stay if it holds an item */
            if
            :: items > 0 -> goto loop
            :: else -> retired++; goto done
            fi
        :: else ->
end_popped:
            atomic { permit[me] -> permit[me] = false }; goto loop
        fi
    fi;
exit:
    /* OnWorkerExiting: a worker exiting as a searcher stops counting */
    atomic {
        if
        :: isSearching -> searching--
        :: else -> skip
        fi;
        exited++
    };
done:
    skip
}

/* When nothing can move any more (every worker parked, producers finished), nothing may be left queued. */
active proctype Watchdog() {
end_watch:
    timeout ->
#ifdef BLOCKING
        assert(items == 0 || parked == 0);  /* nothing queued while a worker is parked */
        assert(!anyHeld || parked == 0);    /* -DSLOTS: no slot's entry left while a worker is parked */
#else
        assert(items == 0);
#endif
#ifdef STOP
        assert(parked == 0);                /* after Stop, nobody stays parked */
#endif
        assert(retired <= SPARES);
        assert(producerWakes <= pushes);
        assert(wakes <= 2 * (pushes + refills + slotPushes) + retired)   /* -DSLOTS: a leaving spare's hand-over wake */
}

init {
    byte w = 0;
    atomic {
        do
        :: w < WORKERS -> run Worker(w); w++
        :: else -> break
        od;
        w = 0;
        do
        :: w < PRODUCERS -> run Producer(); w++
        :: else -> break
        od
    }
}

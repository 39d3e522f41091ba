/*
 * Promela model of a priority lane in an abandon (PriorityLanes.cs, ShutdownCoordinator.cs): producers that add an item
 * to the lane and publish its ticket, one worker that runs tickets and takes High items straight from the lane until it
 * sees the abandon, and the shutdown's two looks once the worker has exited. Items have identities here (the lane is a
 * FIFO channel of producer ids), because a ticket takes the lane's oldest item, not the one it was queued for.
 * Checked by eng/check-models.sh with Spin.
 *
 * Properties:
 *  - every item accepted before the shutdown began (its producer's TryQueue returned before Begin's exchange) is taken
 *    (run by the worker, or handed back) before the shutdown returns: asserted when it returns;
 *  - no item is taken twice (asserted at each take), and when nothing can move any more every added item was taken
 *    once and the lane, the queue and the counts are empty (asserted at Spin's timeout): a racing producer that finds
 *    the pool past its last look runs its own ticket, which takes its item or finds nothing.
 * Variants: -DLOW (the Low lane: no count, one ticket per item, a ticket takes the oldest item if any); -DDRAIN (a
 * drain: after the stop the worker takes on until the queue and the lane are empty, and then leaves; every item
 * accepted before the shutdown began is taken by the worker, not by the looks: asserted when it returns).
 * Broken variants Spin must reject: -DTICKETS_ONLY (the looks take lane items only through the queue's tickets: a
 * racing producer's item, counted but its ticket not yet published, is taken in place of an accepted one, which is left
 * for the racer's late ticket); -DENQUEUE_FIRST (High: the item enqueued before it is counted: the looks' claims can take
 * an uncounted item and leave a counted one); -DDRAIN -DBROKEN_LEAVE (the drain's worker leaves once the queue is
 * empty: an accepted item whose ticket took a racer's, or a covered High item added after its last take, is left to
 * the finish, off the workers).
 *
 * What is the code, step by step. A producer (TryPublish, PublishToLane, Publish, OnQueuedDuringShutdown): reads the
 * shutdown flag (refused if set); counts its item with one compare-and-swap of items and tickets (High), then enqueues
 * it; publishes its ticket if the count said so (Low: always); reads the shutdown flag again, ticket or not, and if set
 * and the last look has begun, runs one leftover the look left: a ticket from the queue, else a lane's item. A ticket's run (or hand-back): one compare-and-swap (one ticket less,
 * one item claimed if any is counted), then the claimed item's dequeue, which waits for an enqueue in progress. The
 * worker checks the abandon flag before each look, then takes a High item directly (claim, dequeue) or a ticket; in a
 * drain (WorkerLoop, ExitBarrier) it takes on after the stop, reads the stop flag, then the queue, then the lanes, each a
 * separate load, and leaves when all say empty; after the stop its take also takes a lane's item directly. The
 * shutdown: Begin's exchange, then (once the worker exited) the first look, the last-look flag, the second look; each
 * look takes the queue's tickets and then, unless TICKETS_ONLY, every count left (TryTakeLeftover). Memory is
 * sequentially consistent, as the interlocked operations and full fences make the accesses that matter. Not modelled: a
 * Low ticket's deferral (PriorityLanes.ShouldDeferLow), which only delays an item, by at most LowPriorityMaxDelay, and
 * counts tickets, so that those left with no item by a direct take are no other work (LowTicketDrainTests); and the exit
 * barrier's decision among several workers
 * (ExitBarrier.pml, whose "queue" stands for the queue and the lanes).
 */

#ifndef PRODUCERS
#define PRODUCERS 3
#endif

#define TAKE(x) atomic { assert((taken & (1 << x)) == 0); taken = taken | (1 << x) }

chan lane = [PRODUCERS] of { byte };  /* the lane's items, oldest first, by producer id */
byte high = 0;         /* High: items counted and not yet claimed */
byte tickets = 0;      /* High: tickets outstanding (queued, running, or about to be published) */
byte queue = 0;        /* tickets in the pool's queue */
bool shut = false;     /* Begin's exchange done */
bool finished = false; /* the last look has begun */
bool returned = false; /* the shutdown has returned its result */
bool workerGone = false;
byte added = 0;        /* producers whose item went into the lane */
byte accepted = 0;     /* producers whose TryQueue returned true */
byte before = 0;       /* accepted before Begin */
byte taken = 0;        /* items taken (run or handed back), by producer id */
byte quiet = 0;        /* producers finished */
byte byWorker = 0;     /* items the worker took, by producer id */

/* A ticket's run or hand-back: its exchange, then the claimed item. */
inline run_ticket(x, got) {
#ifdef LOW
  if
  :: atomic { nempty(lane) -> lane?x }; TAKE(x)
  :: atomic { empty(lane) -> skip }
  fi
#else
  atomic {
    tickets--;
    got = (high > 0);
    if
    :: got -> high--
    :: else -> skip
    fi
  };
  if
  :: got -> lane?x; TAKE(x)        /* waits for an enqueue in progress */
  :: else -> skip
  fi
#endif
}

/* TryTakeLeftover's lane part: every item a count stands for (High), every item there (Low). */
inline take_lanes(x, got) {
#ifdef TICKETS_ONLY
  skip
#else
  do
#ifdef LOW
  :: atomic { nempty(lane) -> lane?x }; TAKE(x)
  :: atomic { empty(lane) -> break }
#else
  :: atomic { high > 0 -> high-- }; lane?x; TAKE(x)
  :: atomic { high == 0 -> break }
#endif
  od
#endif
}

inline look(x, got) {
  do
  :: atomic { queue > 0 -> queue-- }; run_ticket(x, got)
  :: atomic { queue == 0 -> break }
  od;
  take_lanes(x, got)
}

proctype producer(byte id) {
  bool ticket = true;
  byte x;
  bool got;
  if
  :: atomic { shut -> goto out }                     /* refused: TryQueue returns false */
  :: atomic { !shut -> skip }
  fi;
#ifdef LOW
  lane!id;
#else
#ifdef ENQUEUE_FIRST
  lane!id;
#endif
  atomic {                                           /* the one compare-and-swap of items and tickets */
    ticket = (tickets <= high);
    high++;
    if
    :: ticket -> tickets++
    :: else -> skip
    fi
  };
#ifndef ENQUEUE_FIRST
  lane!id;
#endif
#endif
  added = added | (1 << id);
  if
  :: ticket ->
     queue++                                         /* Publish: the ticket is queued, a full fence */
  :: else -> skip                                    /* a ticket outstanding covers it: nothing published */
  fi;
  /* Either way, then the shutdown flag (OnQueuedDuringShutdown): past the last look the producer runs one leftover,
     the queue's first (a ticket), else a lane's (TryTakeLeftover). A producer whose item a ticket outstanding covers
     does the same: without it, that item waited for the ticket's producer, however long it was stopped, and ran on its
     thread after the shutdown returned. */
  if
  :: atomic { shut && finished && queue > 0 -> queue-- }; run_ticket(x, got)
#ifndef LOW
  :: atomic { shut && finished && queue == 0 && high > 0 -> high-- }; lane?x; TAKE(x)
  :: atomic { !(shut && finished && (queue > 0 || high > 0)) -> skip }  /* open, left to the looks, or nothing left */
#else
  :: atomic { shut && finished && queue == 0 && len(lane) > 0 -> lane?x }; TAKE(x)
  :: atomic { !(shut && finished && (queue > 0 || len(lane) > 0)) -> skip }
#endif
  fi;
  accepted = accepted | (1 << id);
out:
  quiet++
}

#ifndef DRAIN
proctype worker() {
  byte x;
  bool got;
end:
  do
  :: atomic { shut -> break }                        /* the abandon flag, read before each look */
  :: atomic { !shut && high > 0 -> high-- };         /* TryTakeHigh's claim */
     lane?x; TAKE(x)
  :: atomic { !shut && queue > 0 -> queue-- };
     run_ticket(x, got)
  od;
  workerGone = true
}
#else
/* A drain's worker: the take (High straight from the lane, else a ticket, else, once stopped, a lane's item: the Low
   one here, High being taken first), then the stop flag, the queue and the lanes as separate loads. x is set by a
   take, and 255 (none) when a ticket found nothing. */
proctype worker() {
  byte x;
  bool got;
end:
  do
  :: atomic { high > 0 -> high-- }; lane?x; TAKE(x); byWorker = byWorker | (1 << x)
  :: atomic { queue > 0 -> queue-- }; x = 255; run_ticket(x, got);
     if
     :: x != 255 -> byWorker = byWorker | (1 << x)
     :: else -> skip
     fi
#if defined(LOW) && !defined(BROKEN_LEAVE)
  :: atomic { shut && nempty(lane) -> lane?x }; TAKE(x); byWorker = byWorker | (1 << x)
#endif
  :: shut ->                                         /* the takes found nothing; the stop flag read */
     if
     :: queue > 0 -> skip                            /* round again */
     :: queue == 0 ->
#ifdef BROKEN_LEAVE
        break
#else
        if                                           /* PriorityLanes.IsEmpty: the High count, then the Low lane */
        :: high > 0 -> skip
        :: high == 0 ->
           if
           :: nempty(lane) -> skip
           :: empty(lane) -> break
           fi
        fi
#endif
     fi
  od;
  workerGone = true
}
#endif

proctype shutdown() {
  byte x;
  bool got;
  atomic { shut = true; before = accepted };         /* Begin's exchange; the abandon flag with it */
  workerGone;
  look(x, got);                                      /* the first look */
  finished = true;
  look(x, got);                                      /* the last look */
  atomic {
    assert((taken & before) == before);
#ifdef DRAIN
    assert((byWorker & before) == before);           /* the drain's workers ran them, not the finish */
#endif
    returned = true
  }
}

active proctype stranded() {
  timeout -> assert(quiet == PRODUCERS && returned && taken == added && queue == 0 && high == 0 && tickets == 0 && empty(lane))
}

init {
  byte p = 0;
  atomic {
    do
    :: p < PRODUCERS -> run producer(p); p++
    :: else -> break
    od;
    run worker();
    run shutdown()
  }
}

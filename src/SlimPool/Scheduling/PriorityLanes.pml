/*
 * Promela model of the High lane's tickets (PriorityLanes.cs): producers that count an item and then put it in the lane,
 * queueing a ticket only while no more tickets are outstanding than items wait; workers that take High items straight
 * from the lane before each look at the queue, run queued tickets (each takes one lane item if one is counted), and park
 * when they find neither. Checked by eng/check-models.sh with Spin.
 *
 * Properties:
 *  - tickets never fall behind items: `tickets >= high` after every change of the word (asserted at each one), so a
 *    counted lane item always has a ticket queued or running;
 *  - tickets never outnumber what was added: the queue holds at most PRODUCERS * PUSHES tickets (asserted);
 *  - no item is stranded: when nothing can move any more (every worker parked, every producer done), the lane is empty
 *    and so is the word, asserted by a check that runs at Spin's timeout.
 * Broken variant Spin must reject: -DTWO_WORDS (the counts in two words: the producer reads the ticket count, then
 * raises the item count, then raises the ticket count if its read said so; two producers can each count on the other's
 * ticket and an item waits with none).
 *
 * What is the code, step by step: the producer's compare-and-swap of the one word (items and tickets together), its
 * enqueue into the lane (after it is counted), then its publish of the ticket; a direct take's compare-and-swap that
 * claims a counted item, then its dequeue from the lane, which waits for an item (the claimed count's producer may still
 * be enqueuing it; items are anonymous here, their identities are PriorityLanesShutdown.pml's); a ticket's dequeue from the queue, then its compare-and-swap (one ticket less, and one item
 * claimed if any is counted), then the claimed item's dequeue. A worker parks after a failed direct look (the count
 * read 0) and then an empty queue, two separate reads. What is abstracted: the pool's idle wait wakes a worker for a
 * queued ticket (its own proof is the idle-wait models'): here a parked worker wakes when the queue holds a ticket.
 * Memory is sequentially consistent, as the code's interlocked operations make the accesses that matter.
 */

#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef PRODUCERS
#define PRODUCERS 2
#endif
#ifndef PUSHES
#define PUSHES 1             /* High items per producer */
#endif

byte lane = 0;      /* items in the lane (the lock-free queue _high), each counted before it was enqueued */
byte high = 0;      /* the word's item count: items counted and not yet claimed */
byte tickets = 0;   /* the word's ticket count: tickets queued, or dequeued and not yet through their exchange */
byte queue = 0;     /* tickets in the pool's queue */
byte done = 0;      /* producers finished */

inline claim_item(got) {
  /* The claimed count's item is in the lane or on its way (counted before its enqueue): the dequeue waits for it. */
  if
  :: got -> atomic { lane > 0 -> lane-- }
  :: else -> skip
  fi
}

proctype producer() {
  byte i = 0;
  bool ticket;
#ifdef TWO_WORDS
  byte t; byte h;
#endif
  do
  :: i < PUSHES ->
#ifdef TWO_WORDS
     t = tickets;
     h = high;
     high++;
     ticket = (t <= h);
     if
     :: ticket -> tickets++
     :: else -> skip
     fi;
#else
     atomic {                                     /* the one compare-and-swap of items and tickets */
       ticket = (tickets <= high);
       high++;
       if
       :: ticket -> tickets++
       :: else -> skip
       fi;
       assert(tickets >= high)
     };
#endif
     lane++;                                      /* _high.Enqueue(item) */
     if
     :: ticket -> queue++; assert(queue <= PRODUCERS * PUSHES)   /* Publish(ticket) */
     :: else -> skip                              /* covered by a ticket outstanding; its slot is given back */
     fi;
     i++
  :: else -> break
  od;
  done++
}

proctype worker() {
  bool got;
end:
  do
  :: atomic { queue > 0 -> queue-- } ->           /* woken for a ticket, or looking: dequeues one */
     atomic {                                     /* the ticket's compare-and-swap */
       tickets--;
       got = (high > 0);
       if
       :: got -> high--
       :: else -> skip
       fi;
#ifndef TWO_WORDS
       assert(tickets >= high)
#endif
     };
     claim_item(got);
look:
     do
     :: high > 0 ->                               /* TryTakeHigh: the count read non-zero, then the claim */
        atomic {
          got = (high > 0);
          if
          :: got -> high--
          :: else -> skip
          fi;
#ifndef TWO_WORDS
          assert(tickets >= high)
#endif
        };
        claim_item(got)
     :: atomic { queue > 0 -> queue-- } ->
        atomic {
          tickets--;
          got = (high > 0);
          if
          :: got -> high--
          :: else -> skip
          fi;
#ifndef TWO_WORDS
          assert(tickets >= high)
#endif
        };
        claim_item(got)
     :: high == 0 ->                              /* the direct look found nothing ... */
        if
        :: queue == 0 -> break                    /* ... nor did the queue: park */
        :: else -> skip
        fi
     od
  od
}

/* When nothing can move, no item waits in the lane: every one had a ticket that some worker ran. */
active proctype stranded() {
  timeout -> assert(done == PRODUCERS && queue == 0 && lane == 0 && high == 0 && tickets == 0)
}

init {
  byte p = 0;
  byte w = 0;
  atomic {
    do
    :: p < PRODUCERS -> run producer(); p++
    :: else -> break
    od;
    do
    :: w < WORKERS -> run worker(); w++
    :: else -> break
    od
  }
}

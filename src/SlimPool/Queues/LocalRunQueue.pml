/*
 * Promela model of a work-stealing worker's own queues (LocalRunQueue.cs, LifoSlot.cs, WorkerQueues.Push and TryTakeOwn):
 * the owner pushes items through its LIFO slot (the slot's previous entry goes to the back of the ring; a full ring moves
 * its older half and the item to the shared queue) and takes them back (slot or ring), while thieves steal half of the
 * ring, single ring entries, and the slot. Checked by eng/check-models.sh with Spin.
 *
 * Properties:
 *  - no entry is taken twice and no take returns an empty or overwritten cell: asserted at every take (taken[i] was 0,
 *    the value read is an item);
 *  - no entry is lost: when nothing can move any more, every item pushed is exactly once among those taken, the ring's
 *    queued positions [real, tail), the slot (odd version) and the shared queue (asserted at Spin's timeout).
 * Broken variants Spin must reject: -DBROKEN_ROOM (the owner measures the ring's room from real instead of steal, so
 * it rewrites a cell a thief has claimed and is still copying), -DBROKEN_SLOT (the slot's version is a full/empty flag:
 * a thief that read an entry, lost it to the owner and saw the flag set again by the next put takes a stale entry).
 *
 * What is the code, step by step. The ring: `_head` is one word (steal, real), read and compared-and-swapped whole;
 * `_tail` is the owner's. The owner's push reads the head, then writes the cell, then the tail (PushBack); a full ring
 * with a thief copying sends the item to the shared queue; a full ring without one claims its older half with one
 * compare-and-swap of the head, then takes those cells one at a time (each take clears the cell), then enqueues them and
 * the item. The owner's pop reads the head, compares real with its tail, compares-and-swaps real on, then takes the cell.
 * A thief reads the head (waits while another thief's claim is open: steal != real), then the tail, claims half
 * (rounded up) by moving real and leaving steal, takes the claimed cells one at a time, then releases (steal = real,
 * by a compare-and-swap loop, one step here). The slot: the owner's take is a compare-and-swap of its own last version
 * (odd to even), then the cell's read; a failed take catches up (clears the cell a thief left). Its put writes the cell,
 * then the odd version. A thief reads the version, then the cell, then compares-and-swaps the version it read. The
 * slot's budget is left to nondeterminism: the owner may take its slot or its ring at any look, which includes every
 * order the budget allows. The thief's own ring is abstracted: what it claims counts as taken (its ring is this same
 * code with the thief as owner). Memory is sequentially consistent: the code's head, tail and version accesses are
 * volatile or interlocked, and each cell is written before the store that publishes it.
 */

#ifndef CAP
#define CAP 4              /* the ring's entries (power of two) */
#endif
#ifndef PUSHES
#define PUSHES 6           /* items the owner queues: slot + ring + 1 overflows a ring of 4 once */
#endif
#ifndef THIEVES
#define THIEVES 2
#endif
#ifndef TAKES
#define TAKES 2            /* the owner's takes (slot or ring), which may fail */
#endif
#ifndef LOOKS
#define LOOKS 3            /* looks per thief (each a steal of the ring or of the slot, which may fail) */
#endif
#define HALF (CAP / 2)

byte cells[CAP];           /* 0: free; else an item (1..PUSHES) */
byte steal = 0;            /* _head's high half */
byte real = 0;             /* _head's low half */
byte tail = 0;             /* the owner's */
byte slotEntry = 0;        /* the slot's cell */
byte version = 0;          /* odd: the slot holds an entry */
byte shared[PUSHES + 1];   /* how many times each item sits in the shared queue */
byte taken[PUSHES + 1];    /* how many times each item was taken (run) */
byte finished = 0;         /* processes done */

inline take(item) {
  assert(item != 0);             /* an empty or cleared cell: an entry lost */
  assert(taken[item] == 0);      /* an entry taken twice */
  taken[item]++
}

/* LocalRunQueue.PushBack, then the slot's put. */
inline push_back(item) {
  pushed = false;
  do
  :: pushed -> break
  :: else ->
     atomic { ps = steal; pr = real };                        /* Volatile.Read(_head) */
#ifdef BROKEN_ROOM
     if
     :: (tail - pr) < CAP ->
#else
     if
     :: (tail - ps) < CAP ->
#endif
        cells[tail % CAP] = item;                           /* the cell ... */
        tail++;                                             /* ... then the tail (release) */
        pushed = true
     :: else ->
        if
        :: ps != pr -> shared[item]++; pushed = true          /* a thief copies: the item to the shared queue */
        :: else ->
           atomic {                                         /* TryOverflow'ps claim */
             if
             :: steal == ps && real == pr -> steal = pr + HALF; real = pr + HALF; pushed = true
             :: else -> skip
             fi
           };
           if
           :: pushed ->
              pk = 0;
              do
              :: pk < HALF -> pbuf[pk] = cells[(pr + pk) % CAP]; cells[(pr + pk) % CAP] = 0; pk++  /* Take */
              :: else -> break
              od;
              pk = 0;
              do                                            /* the batch into the shared queue */
              :: pk < HALF -> assert(pbuf[pk] != 0); shared[pbuf[pk]]++; pk++
              :: else -> break
              od;
              shared[item]++
           :: else -> skip                                  /* lost the head to a thief: look again */
           fi
        fi
     fi
  od
}

/* LifoSlot.TryTake by the owner: compare-and-swap of its own last version, then the cell; or catch up. */
inline slot_take(ownerVersion, got) {
  got = 0;
  if
  :: (ownerVersion % 2) == 1 ->
     atomic {
       if
       :: version == ownerVersion -> version = ownerVersion + 1; got = 1
       :: else -> skip
       fi
     }
  :: else -> skip
  fi;
  if
  :: got == 1 -> got = slotEntry; slotEntry = 0; ownerVersion++
  :: else ->
     atomic { if :: version != ownerVersion -> slotEntry = 0; ownerVersion = version :: else -> skip fi }  /* CatchUp */
  fi
}

/* Locals back to 0 after each look, so states that differ only in a finished look's leftovers are one state. */
inline forget_thief() {
  atomic { s = 0; r = 0; t = 0; n = 0; k = 0; v = 0; e = 0; claimed = false }
}

inline forget_owner() {
  atomic { got = 0; s = 0; r = 0; pushed = false; ps = 0; pr = 0; pk = 0; pbuf[0] = 0; pbuf[HALF - 1] = 0 }
}

proctype owner() {
  byte ownerVersion = 0;
  byte next = 1;
  byte got, s, r;
  byte takes = 0;
  bool pushed;             /* push_back's */
  byte ps, pr, pk, pbuf[HALF];
  do
  :: next <= PUSHES ->                                      /* WorkerQueues.Push */
     slot_take(ownerVersion, got);
     if
     :: got != 0 -> push_back(got)
     :: else -> skip
     fi;
     slotEntry = next;                                      /* LifoSlot.Put: the cell ... */
     ownerVersion++;
     version = ownerVersion;                                /* ... then the odd version (release) */
     next++;
     forget_owner()
  :: takes < TAKES ->                                       /* TryTakeOwn: the slot (within its budget) */
     takes++;
     slot_take(ownerVersion, got);
     if
     :: got != 0 -> take(got)
     :: else -> skip
     fi;
     forget_owner()
  :: takes < TAKES ->                                       /* TryTakeOwn: the ring (LocalRunQueue.TryPop) */
     takes++;
     got = 0;
     atomic { s = steal; r = real };
     if
     :: r != tail ->
        atomic {
          if
          :: steal == s && real == r -> got = 1; real = r + 1; if :: s == r -> steal = r + 1 :: else -> skip fi
          :: else -> skip
          fi
        };
        if
        :: got == 1 -> got = cells[r % CAP]; cells[r % CAP] = 0; take(got)
        :: else -> skip
        fi
     :: else -> skip
     fi;
     forget_owner()
  :: next > PUSHES && takes == TAKES -> break
  od;
  finished++
}

proctype thief(bool half) {
  byte s, r, t, n, k, v, e;
  byte looks = 0;
  bool claimed;
  do
  :: looks == LOOKS -> break
  :: looks < LOOKS ->                                       /* the ring: half, or one */
     looks++;
     claimed = false;
     atomic { s = steal; r = real };
     if
     :: s == r ->                                           /* no claim open (else: wait for it, or give up) */
        t = tail;
        if
        :: t != r ->
           n = t - r;
           if :: half -> n = n - n / 2; if :: n > HALF -> n = HALF :: else -> skip fi :: else -> n = 1 fi;
           atomic { if :: steal == s && real == r -> real = r + n; claimed = true :: else -> skip fi };
           if
           :: claimed ->
              k = 0;
              do
              :: k < n -> e = cells[(s + k) % CAP]; cells[(s + k) % CAP] = 0; take(e); k++
              :: else -> break
              od;
              atomic { steal = real }                       /* Release */
           :: else -> skip
           fi
        :: else -> skip
        fi
     :: else -> skip
     fi;
     forget_thief()
  :: looks < LOOKS ->                                       /* LifoSlot.TrySteal (after the grace: any moment) */
     looks++;
     v = version;
     if
     :: (v % 2) == 1 ->
        e = slotEntry;
        atomic {
          if
#ifdef BROKEN_SLOT
          :: (version % 2) == 1 -> version = version + 1; claimed = true
#else
          :: version == v -> version = v + 1; claimed = true
#endif
          :: else -> claimed = false
          fi
        };
        if
        :: claimed -> take(e)
        :: else -> skip
        fi
     :: else -> skip
     fi;
     forget_thief()
  od;
  finished++
}

/* At Spin's timeout (nothing can move): every item is exactly once among the taken, the ring, the slot, the shared queue. */
active proctype check() {
  byte i, p, count;
  timeout ->
  i = 1;
  do
  :: i <= PUSHES ->
     count = taken[i] + shared[i];
     if :: (version % 2) == 1 && slotEntry == i -> count++ :: else -> skip fi;
     p = real;
     do
     :: p != tail -> if :: cells[p % CAP] == i -> count++ :: else -> skip fi; p++
     :: else -> break
     od;
     assert(count == 1);
     i++
  :: else -> break
  od
}

init {
  byte t = 0;
  atomic {
    run owner();
    do
    :: t < THIEVES -> run thief(t == 0); t++
    :: else -> break
    od
  }
}

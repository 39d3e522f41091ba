/*
 * GroupDrained.pml: a group's drained signal when its items finish in two ways at once, its turn running them (which
 * counts _ran) and the group's abandon handing them back (which counts _notRun), with the close racing both.
 * Checked by eng/check-models.sh with Spin.
 *
 * The code (GroupTurns):
 *   Close:         _closed = 1 (an exchange); PendingCount: reads _ran, then _notRun (then _accepted); none pending:
 *                  SignalDrained
 *   the turn:      RunTurn takes items from the queue and runs them; at a quantum's end AddRan: _ran += n (an
 *                  interlocked add), then CheckDrained(that sum, _notRun read after it); when TryTake finds the queue
 *                  empty, EndTurn: _ran += n (a serial group's plain store), the decrement of _turns (a full fence),
 *                  then CheckDrained(the sum, _notRun read after it)
 *   the sweep:     Abandon (after Close), HandBackQueued: takes items from the queue; each OnItemNotRun: _notRun += 1
 *                  (an interlocked increment), then CheckDrained(_ran read after it, that count)
 *   CheckDrained(ran, notRun): reads _closed, then _accepted; closed and ran + notRun == accepted: SignalDrained
 * Every item is accepted before the close (the accepted count is ITEMS). Promela is sequentially consistent; each
 * read and write below is one step, and the code's full fences are what makes its program order hold on the
 * processor. What this checks is that order: each side changes its own count before it reads the other's.
 * Property: when every item has finished, the group being closed, the drained signal was raised (else Dispose and
 * ShutdownAsync never complete).
 * Broken variant, which must fail: BROKEN_ORDER (OnItemNotRun reads _ran before it counts its item: the two were one
 * call's arguments, evaluated left to right).
 */
#ifndef ITEMS
#define ITEMS 3
#endif
#ifndef QUANTUM
#define QUANTUM 2
#endif

byte queued = ITEMS;  /* items in the group's queue */
byte ran = 0;         /* _ran */
byte notRun = 0;      /* _notRun */
bit closed = 0;       /* _closed */
bit signalled = 0;    /* the drained signal */

/* CheckDrained: the counts as the caller read them, then _closed and _accepted. */
inline checkDrained(r, n) {
    if
    :: closed == 1 && r + n == ITEMS -> signalled = 1
    :: else -> skip
    fi
}

proctype Turn() {
    byte counted = 0;
    byte r;
    byte n;
    do
    :: atomic { queued > 0 -> queued-- };   /* TryTake */
        counted++;                          /* the item runs */
        if
        :: counted == QUANTUM ->            /* AddRan: the add returns the sum; _notRun is read after it */
            atomic { ran = ran + counted; r = ran };
            counted = 0;
            n = notRun;
            checkDrained(r, n)
        :: else -> skip
        fi
    :: atomic { queued == 0 -> skip };      /* TryTake finds the queue empty: EndTurn */
        r = ran + counted;                  /* the serial turn's plain store of the sum */
        ran = r;
        n = notRun;                         /* after the decrement of _turns */
        if
        :: counted > 0 -> checkDrained(r, n)
        :: else -> skip
        fi;
        break
    od
}

proctype Sweep() {
    byte r;
    byte n;
    closed == 1;                            /* the group's abandon follows its close */
    do
    :: atomic { queued > 0 -> queued-- };   /* TryTake: the item is handed back */
#ifdef BROKEN_ORDER
        r = ran;
        atomic { notRun++; n = notRun };
#else
        atomic { notRun++; n = notRun };    /* OnItemNotRun: the increment returns the count; _ran is read after it */
        r = ran;
#endif
        checkDrained(r, n)
    :: atomic { queued == 0 -> break }
    od
}

proctype Closer() {
    byte r;
    byte n;
    closed = 1;                             /* Close's exchange */
    r = ran;                                /* PendingCount */
    n = notRun;
    if
    :: r + n == ITEMS -> signalled = 1
    :: else -> skip
    fi
}

init {
    atomic { run Turn(); run Sweep(); run Closer() };
    _nr_pr == 1;                            /* all three are done */
    assert(ran + notRun == ITEMS);
    assert(signalled == 1)
}

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
 *   CheckDrained(ran, notRun): reads _closed, then _accepted; closed and ran + notRun == accepted: TryMarkDrained (a
 *                  compare-and-swap setting the drained mark in _accepted, from the value read; already marked: true),
 *                  and if it holds, SignalDrained
 *   a continuation (CONT): TryAcceptContinuation: _accepted += 1 (an interlocked increment, whose result carries the
 *                  mark); closed and marked: refused (OnItemNotRun); else queued, and it runs later as the group's
 *                  item (its turn adds it to _ran and calls CheckDrained)
 * ITEMS items are accepted before the close; with NO_SWEEP the group drains instead of abandoning (no sweep). Promela is sequentially consistent; each
 * read and write below is one step, and the code's full fences are what makes its program order hold on the
 * processor. What this checks is that order: each side changes its own count before it reads the other's.
 * Properties: when every item has finished, the group being closed, the drained signal was raised (else Dispose and
 * ShutdownAsync never complete); and no accepted item runs after it (a drain's result comes with it).
 * Broken variants, which must fail: BROKEN_ORDER (OnItemNotRun reads _ran before it counts its item: the two were one
 * call's arguments, evaluated left to right); BROKEN_MARK (no mark: CheckDrained signals on equal counts and a
 * continuation is refused only once the signal is raised, so one counted between CheckDrained's read of _accepted
 * and its signal runs after the drain).
 */
#ifndef ITEMS
#define ITEMS 3
#endif
#ifndef QUANTUM
#define QUANTUM 2
#endif

byte queued = ITEMS;  /* items in the group's queue */
bit turns = 1;        /* _turns: the serial group's one turn, held by the first Turn from the start */
byte accepted = ITEMS; /* _accepted's count */
bit mark = 0;         /* _accepted's drained mark */
byte ran = 0;         /* _ran */
byte notRun = 0;      /* _notRun */
bit closed = 0;       /* _closed */
bit signalled = 0;    /* the drained signal */

/* CheckDrained: the counts as the caller read them, then _closed, then _accepted (count and mark, one word). */
inline checkDrained(r, n) {
    c = closed;
    atomic { a = accepted; m = mark };
    if
    :: c == 1 && r + n == a ->
#ifdef BROKEN_MARK
        signalled = 1
#else
        atomic {                            /* TryMarkDrained */
            if
            :: m == 1 -> ok = 1
            :: m == 0 && accepted == a && mark == 0 -> mark = 1; ok = 1
            :: else -> ok = 0
            fi
        };
        if
        :: ok == 1 -> signalled = 1
        :: else -> skip
        fi
#endif
    :: else -> skip
    fi
}

proctype Turn() {
    byte counted = 0;
    byte r;
    byte n;
    byte a;
    bit m;
    bit ok;
    bit c;
    do
    :: atomic { queued > 0 -> queued-- };   /* TryTake */
        assert(signalled == 0);             /* the item runs: never after the drained signal */
        counted++;
        if
        :: counted == QUANTUM ->            /* AddRan: the add returns the sum; _notRun is read after it */
            atomic { ran = ran + counted; r = ran };
            counted = 0;
            n = notRun;
            checkDrained(r, n)
        :: else -> skip
        fi
    :: atomic { queued == 0 -> skip };      /* TryTake finds the queue empty: EndTurn */
        r = ran + counted;                  /* the serial turn's plain store of the sum: it holds the one turn */
        ran = r;
        turns = 0;                          /* the decrement of _turns */
        n = notRun;
        if
        :: counted > 0 -> checkDrained(r, n)
        :: else -> skip
        fi;
        counted = 0;
        if
        :: atomic { queued > 0 && turns == 0 -> turns = 1 }  /* an item came: the turn is taken again */
        :: else -> break
        fi
    od
}

proctype Sweep() {
    byte r;
    byte n;
    byte a;
    bit m;
    bit ok;
    bit c;
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

/* A continuation that arrives from elsewhere (a timer) while the group drains; accepted, it is queued, and a turn
   runs it: the one running, or one it takes (the first may be over). */
proctype Continuation() {
    byte r;
    byte n;
    byte a;
    bit m;
    bit ok;
    bit c;
    atomic { accepted++; a = accepted; m = mark };  /* TryAcceptContinuation's increment */
    if
#ifdef BROKEN_MARK
    :: closed == 1 && signalled == 1 ->     /* refused once the signal is raised */
#else
    :: closed == 1 && m == 1 ->             /* refused: the group was marked drained before the increment */
#endif
        atomic { notRun++; n = notRun };
        r = ran;
        checkDrained(r, n)
    :: else ->
        queued++;                           /* Enqueue: the claim */
        if
        :: atomic { turns == 0 -> turns = 1 }; run Turn()   /* TryTakeTurn, and the pool runs the turn */
        :: else -> skip                     /* a turn is held: it takes the item */
        fi
    fi
}

proctype Closer() {
    byte r;
    byte n;
    byte a;
    bit m;
    bit ok;
    bit c;
    closed = 1;                             /* Close's exchange */
    r = ran;                                /* TryMarkIfDrained: the finished counts, then _accepted */
    n = notRun;
    checkDrained(r, n)
}

init {
    atomic {
        run Turn();
#ifndef NO_SWEEP
        run Sweep();
#endif
#ifdef CONT
        run Continuation();
#endif
        run Closer()
    };
    _nr_pr == 1;                            /* all are done */
    assert(ran + notRun == accepted);
    assert(signalled == 1)
}

/*
 * ExitBarrier.pml: a drain's workers leave together, once none runs an item and nothing is queued, so an item that
 * blocks until another item has run (a Send's callback, posted by the item itself) never waits for ever. Checked by
 * eng/check-models.sh with Spin.
 *
 * The code (ExitBarrier.WaitToLeave, OnQueued, OnWorkerRetired, WakeAll; WorkerLoop at the stop; WorkerSet.OnBlocked's
 * spare, TryStartSpare (the guard's), TryRetire, MarkLeaving):
 *   worker at the stop, queue empty: if _leaving, leave. _idle++ (a full fence). Loop: _leaving -> leave;
 *            _idle >= live -> queue not empty: take it (_idle--), else MarkLeaving, _leaving = 1, WakeAll, leave;
 *            queue not empty -> take it (_idle--); else, under the monitor's lock: _sleepers++ (a full fence), look
 *            again (_leaving, _idle < live, queue empty) and wait for a pulse; _sleepers--.
 *   publisher during the shutdown: publish (a full fence), then OnQueued: _sleepers != 0 -> PulseAll under the lock.
 *   a leaving worker stays counted idle, and leaves the live count when it exits.
 *   "the queue" here is the pool's queue and its priority lanes (ExitBarrier.IsNothingQueued): a lane's item is added
 *            before its ticket is published, and one that publishes no ticket (covered by one outstanding) still calls
 *            OnQueued during a shutdown, so both behave as one publish; PriorityLanesShutdown.pml -DDRAIN checks that the
 *            worker takes a lane's item whose ticket ran another's.
 *   a spare parked in its idle wait as the drain began (-DRETIRE) may time out instead of seeing the stop: it looks at
 *            the queue (IsEmptyForALeavingSpare) and, finding it empty, asks to retire (TryRetire: live--, a full fence,
 *            then the read of the blocked count: refused, live++, while the workers not blocked would fall below
 *            WorkerCount, unless the pool abandons); retired, OnWorkerRetired: _sleepers != 0 -> PulseAll under the
 *            lock. Refused, or finding an item, it goes round its loop as a worker. With -DSPARE the spare that may
 *            time out is the blocking scope's own (scoped counts worker 0 inside its scope); without, one more.
 *   the starvation guard (-DGUARD) may start a spare at any moment of the drain until MarkLeaving, which the deciding
 *            worker calls before it sets _leaving; both the check and the start are under the WorkerSet's lock, so one
 *            step here (leaving stands for both flags: the guard reads MarkLeaving's, set in the same step).
 * Worker 0 starts inside an item that posts its callback (a publish during the shutdown) and then blocks until the
 * callback has run, telling the pool (a blocking scope); with -DSPARE it is the only worker, and its scope starts a
 * spare (counted live before the block); with -DLATEPOST it opens the scope first and posts the callback inside it.
 * Every other worker starts idle at the stop. With -DOUTSIDE a thread outside
 * the pool publishes one more item at any moment (a continuation from a timer): one that lands after the workers' last
 * look is the shutdown's finish's (it runs what is queued once they have left).
 * The monitor's wait has no timeout here (the code's 50 ms only bounds a wake the code might miss): no wake is
 * needed that the code does not send.
 * Property: no execution ends with a worker blocked for ever or waiting on the monitor (Spin's invalid end states); the
 * callback always runs on a worker, before they all leave.
 * Broken variants, which must fail: BROKEN_EARLY (a worker leaves as soon as it finds the queue empty: the code before),
 * BROKEN_NOPULSE (a publish during the shutdown wakes no sleeper), BROKEN_NOSPARE (with -DSPARE: no spare during a
 * shutdown), BROKEN_NORETIREWAKE (with -DRETIRE: a retiring spare wakes no sleeper, the code before: the others waited
 * out the 50 ms bound), BROKEN_RETIRECLOSED (with -DSPARE -DRETIRE: a closed pool grants every retirement, the code
 * before: the scope's spare left a blocked worker's callback with nobody to run it).
 */
#ifndef WORKERS
#define WORKERS 2
#endif

byte queued = 0;      /* items in the pool's queue */
byte live = WORKERS;  /* WorkerSet._live */
byte idle = 0;        /* ExitBarrier._idle */
byte sleepers = 0;    /* ExitBarrier._sleepers */
byte gen = 0;         /* pulses sent: a sleeper waits for it to change */
bit leaving = 0;      /* ExitBarrier._leaving */
bit answered = 0;     /* worker 0's callback has run */
byte scoped = 0;      /* WorkerSet._blocked: worker 0 inside its blocking scope */

inline pulseIfSleeping() {
#ifdef BROKEN_NOPULSE
    skip
#else
    if                 /* the read of _sleepers, then the pulse under the lock: two steps */
    :: sleepers > 0 -> gen++
    :: else -> skip
    fi
#endif
}

inline publish() {
    queued++;          /* the publish, a full fence (Promela is sequentially consistent) */
    pulseIfSleeping()  /* OnQueuedDuringShutdown: Exits.OnQueued */
}

/* One item taken from the queue and run. The callback is the only item but the outside one; running either just
   marks it done (the outside item needs nothing). */
inline runItem() {
    answered = 1
}

proctype Worker(bit blocked) {
    byte seen;
    if
    :: blocked ->
#ifndef LATEPOST
        publish();             /* the item posts its callback (Send) */
#endif
#ifdef SPARE
#ifndef BROKEN_NOSPARE
#ifdef RETIRE
        atomic { scoped++; live++; run Spare() }   /* OnBlocked: the spare, counted live before the block */
#else
        atomic { scoped++; live++; run Worker(0) }
#endif
#endif
#endif
#ifdef LATEPOST
        publish();             /* inside its scope, then (a task it queues and then waits for) */
#endif
        answered == 1;         /* blocks until the callback ran */
        scoped = 0             /* the scope ends with the item */
    :: else -> skip
    fi;
loop:
    if
    :: atomic { queued > 0 -> queued-- }; runItem(); goto loop
    :: else -> skip            /* the queue looked empty: the stop */
    fi;
#ifdef BROKEN_EARLY
    goto leave;
#endif
    if
    :: leaving -> goto leave
    :: else -> skip
    fi;
    idle++;
wait:
    if
    :: leaving -> goto leave
    :: else -> skip
    fi;
    if
    :: idle >= live ->
        if
        :: queued > 0 -> idle--; goto loop
        :: else -> leaving = 1; gen++; goto leave   /* MarkLeaving, _leaving = 1, WakeAll */
        fi
    :: else -> skip
    fi;
    if
    :: queued > 0 -> idle--; goto loop
    :: else -> skip
    fi;
    /* under the lock: register, look again, wait for a pulse */
    atomic {
        sleepers++;
        if
        :: leaving == 0 && idle < live && queued == 0 -> seen = gen
        :: else -> seen = 255
        fi
    };
    if
    :: seen != 255 -> gen != seen     /* Monitor.Wait: until a pulse (none is lost: the pulse is under the lock too) */
    :: else -> skip
    fi;
    sleepers--;
    goto wait;
leave:
    live--
}

proctype Outside() {
    publish()
}

#ifdef RETIRE
/* A spare whose idle wait timed out as the drain began, instead of its seeing the stop. */
proctype Spare() {
    if
    :: queued == 0 ->          /* IsEmptyForALeavingSpare: nothing it was woken for */
        live--;                /* TryRetire: the decrement, a full fence, then the read of the blocked count */
        if
#ifndef BROKEN_RETIRECLOSED
        :: live - scoped < WORKERS -> live++; run Worker(0)   /* refused: round its loop, to the stop */
#endif
        :: else ->
#ifndef BROKEN_NORETIREWAKE
            pulseIfSleeping()  /* OnWorkerRetired */
#else
            skip
#endif
        fi
    :: else -> run Worker(0)   /* an item to take: it stays, the worker it is from here (already counted live) */
    fi
}
#endif

#ifdef GUARD
proctype Guard() {
    if
    :: atomic { leaving == 0 -> live++; run Worker(0) }   /* TryStartSpare: refused once MarkLeaving ran */
    :: skip                                             /* or it starts none */
    fi
}
#endif

init {
    byte w = 1;
    atomic {
#if defined(RETIRE) && !defined(SPARE)
        live++;                /* a spare, live when the drain began */
        run Spare();
#endif
#ifdef GUARD
        run Guard();
#endif
        run Worker(1);
        do
        :: w < WORKERS -> run Worker(0); w++
        :: w == WORKERS -> break
        od;
#ifdef OUTSIDE
        run Outside()
#endif
    }
    /* Every worker has left, and the callback ran. What is still queued then landed after the workers' last look (the
       outside item): the shutdown's finish runs it. */
    live == 0;
    assert(answered == 1);
#ifndef OUTSIDE
    assert(queued == 0)
#endif
}

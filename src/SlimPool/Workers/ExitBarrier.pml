/*
 * ExitBarrier.pml: a drain's workers leave together, once none runs an item and nothing is queued, so an item that
 * blocks until another item has run (a Send's callback, posted by the item itself) never waits for ever. Checked by
 * eng/check-models.sh with Spin.
 *
 * The code (ExitBarrier.WaitToLeave, OnQueued, WakeAll; WorkerLoop at the stop; WorkerSet.OnBlocked's spare):
 *   worker at the stop, queue empty: if _leaving, leave. _idle++ (a full fence). Loop: _leaving -> leave;
 *            _idle >= live -> queue not empty: take it (_idle--), else MarkLeaving, _leaving = 1, WakeAll, leave;
 *            queue not empty -> take it (_idle--); else, under the monitor's lock: _sleepers++ (a full fence), look
 *            again (_leaving, _idle < live, queue empty) and wait for a pulse; _sleepers--.
 *   publisher during the shutdown: publish (a full fence), then OnQueued: _sleepers != 0 -> PulseAll under the lock.
 *   a leaving worker stays counted idle, and leaves the live count when it exits.
 * Worker 0 starts inside an item that posts its callback (a publish during the shutdown) and then blocks until the
 * callback has run, telling the pool (a blocking scope); with -DSPARE it is the only worker, and its scope starts a
 * spare (counted live before the block). Every other worker starts idle at the stop. With -DOUTSIDE a thread outside
 * the pool publishes one more item at any moment (a continuation from a timer): one that lands after the workers' last
 * look is the shutdown's finish's (it runs what is queued once they have left).
 * The monitor's wait has no timeout here (the code's 50 ms only bounds a wake the code might miss): no wake is
 * needed that the code does not send.
 * Property: no execution ends with a worker blocked for ever or waiting on the monitor (Spin's invalid end states); the
 * callback always runs on a worker, before they all leave.
 * Broken variants, which must fail: BROKEN_EARLY (a worker leaves as soon as it finds the queue empty: the code before),
 * BROKEN_NOPULSE (a publish during the shutdown wakes no sleeper), BROKEN_NOSPARE (with -DSPARE: no spare during a
 * shutdown).
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
        publish();             /* the item posts its callback (Send) */
#ifdef SPARE
#ifndef BROKEN_NOSPARE
        atomic { live++; run Worker(0) }   /* OnBlocked: the spare, counted live before the block */
#endif
#endif
        answered == 1          /* blocks until the callback ran */
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

init {
    byte w = 1;
    atomic {
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

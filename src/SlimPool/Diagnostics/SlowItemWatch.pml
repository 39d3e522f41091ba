/*
 * SlowItemWatch.pml: the slow-item watch parks while every worker is idle; a worker that turns busy wakes it.
 * Checked by eng/check-models.sh with Spin.
 *
 * The code (SlowItemWatch.Run and AnyBusy, AnnouncedParker, WorkerLoop.Run):
 *   worker:  SetBusy(true)            (an interlocked exchange: a full fence)
 *            OnWorkerBusy: if parked read 1, exchange it to 0, and if that took the 1, Unpark (a permit, kept if early)
 *            ... runs items; idle: SetBusy(false)
 *   watch:   Look: reads each slot's busy flag, one at a time
 *            none busy: Announce (parked = 1, an interlocked exchange: a full fence), AnyBusy (reads each flag again),
 *                       none: Park (until a permit), then Withdraw (parked = 0); look again
 *            some busy: a timed park (a permit or the period), look again
 * Property: no execution leaves the watch parked for good while a worker runs an item that never returns (the item
 * is then never reported): Spin's invalid end states. Worker 0's last item never returns; every worker first goes
 * through CYCLES items, going idle after each, so the watch parks and is woken many ways.
 * Broken variants, which must fail: BROKEN_RECHECK (the watch parks right after announcing, without looking again),
 * BROKEN_WAKE (a worker turning busy does not read the announcement).
 */
#ifndef WORKERS
#define WORKERS 2
#endif
#ifndef CYCLES
#define CYCLES 2
#endif

bit busy[WORKERS];   /* WorkerState's busy flag */
bit parked = 0;      /* AnnouncedParker._parked */
bit permit = 0;      /* Parker's permit */
bit stuck = 0;       /* worker 0 is inside the item that never returns */
bit reported = 0;

inline turnBusy(id) {
    busy[id] = 1;    /* SetBusy(true): a full fence (Promela is sequentially consistent) */
#ifndef BROKEN_WAKE
    atomic {         /* WakeIfParked: the read, then the exchange that takes the 1 */
        if
        :: parked == 1 -> parked = 0; permit = 1
        :: else -> skip
        fi
    }
#endif
}

proctype Worker(byte id) {
    byte cycle = 0;
    do
    :: cycle < CYCLES ->
        turnBusy(id);
        busy[id] = 0;     /* the item ran; the queue is empty: SetBusy(false) */
        cycle++
    :: cycle == CYCLES -> break
    od;
    if
    :: id == 0 ->
        turnBusy(id);
        stuck = 1         /* an item that never returns: busy for good */
    :: else -> skip
    fi
}

proctype Watch() {
    bit any;
    byte i;
look:
    any = 0;
    i = 0;
    do                    /* Look: each slot's flag, one read at a time */
    :: i < WORKERS -> any = any || busy[i]; i++
    :: i == WORKERS -> break
    od;
    if
    :: any && stuck && busy[0] -> goto done   /* it reports the item once it has run a threshold */
    :: any ->
        if                /* Park(period): a permit, or the period */
        :: atomic { permit == 1 -> permit = 0 }
        :: skip
        fi;
        goto look
    :: else ->
        parked = 1;       /* Announce: a full fence */
        any = 0;
#ifndef BROKEN_RECHECK
        i = 0;
        do                /* AnyBusy */
        :: i < WORKERS -> any = any || busy[i]; i++
        :: i == WORKERS -> break
        od;
#endif
        if
        :: !any -> atomic { permit == 1 -> permit = 0 }   /* Park(): until a permit */
        :: else -> skip
        fi;
        parked = 0;       /* Withdraw */
        goto look
    fi;
done:
    reported = 1
}

init {
    byte w = 0;
    atomic {
        do
        :: w < WORKERS -> run Worker(w); w++
        :: w == WORKERS -> break
        od;
        run Watch()
    }
}

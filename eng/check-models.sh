#!/usr/bin/env bash
# Model-checks the idle protocols, the starvation guard, a group's turns and its drained signal with Spin (Debian
# package "spin"). Each line of the table below is one run: a model, its flags, and whether Spin must find no error ("none") or must find one
# ("some": a deliberately broken variant, so the check itself can fail), and "large" for a run of over 2 million states. The flags each model takes are explained
# at the top of its .pml file (src/SlimPool/Scheduling/):
#   BATCH (the idle waits and GroupTurns): each producer queues its items as one batch (QueueBatch): one publication,
#                             one wake check (idle waits); every item enqueued, then a turn for each (groups)
#   SpinThenParkIdleWait.pml  BLOCKING (items may never return), WS (work-stealing refill in transit, and DECLINES:
#                             steals that leave a lone item to its owner), STOP (wake-all on shutdown), SPARES=n
#                             (retiring spares), SLOTS (entries on the workers' slots, whose owners may block, and the
#                             parked workers that watch them); broken: BROKEN (no re-check), BROKEN_RETIRE (a popped spare
#                             retires), BROKEN_REFILL (a refill wakes nobody), BROKEN_WATCH (no look after a watch ends),
#                             BROKEN_SLOTWAKE (a slot's entry wakes nobody)
#   AutoResetEventIdleWait.pml BLOCKING; broken: BROKEN (no re-check), BROKEN_CHAIN (merged Sets not passed on)
#   StarvationGuard.pml       WS (refill in transit, and DECLINES), COMPUTE (items may also compute for ever: the
#                             no-progress rule's compute-bound limit); broken: OLD_ARMING (armed only when every worker
#                             was busy), BROKEN_REFILL, BROKEN_RUNNABLE (the no-progress rule ignores blocked workers),
#                             STRICT with COMPUTE (the property without the compute-bound allowance: the limit is real)
#   GroupTurns.pml            (src/SlimPool/Groups/) BLOCKING, ABANDON (the group's sweep), MAXTURNS, QUANTUM; the
#                             queue dropped by the turn that found it empty, or later by its worker (DROPS drops at
#                             any moment: 0 in the runs with items that block; 1 and 2 with SLIMPOOL_THOROUGH=1), or by
#                             the group's abandon, and installed again; DRAIN (a drain begun at any moment runs every
#                             item whose queue call returned before it: a call returns behind a published turn);
#                             broken: BROKEN (a turn given back without a re-check), BROKEN_SWEEP (no look after the
#                             sweep), BROKEN_DROP (the queue dropped without retiring it: an item lands in a dropped
#                             queue), BROKEN_NOWAIT and BROKEN_ENDWAIT with DRAIN (a producer whose take fails, or a
#                             turn whose take-back fails, leaves its item to a turn not yet published), BROKEN_PUBGEN
#                             with DRAIN (a publish moves the generation: a waiter leaves on a stale publisher's add)
#   GroupDrained.pml          (src/SlimPool/Groups/) the drained signal when a group's turn and its abandon's sweep
#                             finish its last items at once, the close racing both: ITEMS, QUANTUM, CONT (a continuation
#                             arrives meanwhile), NO_SWEEP (a drain, no abandon); broken: BROKEN_ORDER (the sweep reads
#                             the ran count before it counts its item: neither side signals), BROKEN_MARK (no drained
#                             mark: a continuation counted just before the signal runs after it)
#   LocalRunQueue.pml         (src/SlimPool/Queues/) a work-stealing worker's slot and ring against thieves: CAP (ring
#                             entries), PUSHES, THIEVES (the first steals half, the others one), LOOKS per thief, TAKES
#                             by the owner; broken: BROKEN_ROOM (the ring's room measured from real: a cell a thief is
#                             copying is rewritten), BROKEN_SLOT (the slot's version a full/empty flag: a stale entry)
#   PriorityLanes.pml         the High lane's tickets against direct takes; broken: TWO_WORDS (items and tickets
#                             counted in two words: an item waits with no ticket)
#   PriorityLanesShutdown.pml an abandon against producers racing it, items with identities: PRODUCERS, LOW (the Low
#                             lane), DRAIN (a drain: the worker takes every item accepted before it); broken:
#                             TICKETS_ONLY (the looks take lane items through tickets alone: an item accepted before
#                             the shutdown is left to a racer's late ticket), ENQUEUE_FIRST (High items enqueued before
#                             they are counted), BROKEN_LEAVE with DRAIN (the worker leaves on an empty queue, the lanes
#                             unread: an accepted item is left to the finish)
#   ExitBarrier.pml           (src/SlimPool/Workers/) a drain's workers leaving together while an item blocks until
#                             its posted callback has run: WORKERS, SPARE (one worker, and its blocking scope's spare),
#                             LATEPOST (the callback posted inside the scope), OUTSIDE (a publish from outside at any
#                             moment), RETIRE (a spare whose idle wait times out during the drain asks to retire),
#                             GUARD (the starvation guard may start a spare until the workers leave); broken:
#                             BROKEN_EARLY (a worker leaves on an empty queue: the code before), BROKEN_NOPULSE (a
#                             publish wakes no sleeper), BROKEN_NOSPARE (no spare during a shutdown),
#                             BROKEN_NORETIREWAKE (a retiring spare wakes no sleeper), BROKEN_RETIRECLOSED (a closed pool
#                             lets the scope's spare retire)
#   SlowItemWatch.pml         (src/SlimPool/Diagnostics/) the slow-item watch parking while every worker is idle and a
#                             worker that turns busy waking it: WORKERS, CYCLES; broken: BROKEN_RECHECK (the watch parks
#                             right after announcing), BROKEN_WAKE (a worker turning busy does not read the announcement)
# Sizes: 2 workers with 2 producers x 1 item, or 1 producer x 3 items; a steal's grace (DECLINES, one failed
# dequeue with items queued) multiplies the states about threefold, so it runs with 1 producer x 2 items. The guard's
# limit for items that compute for ever shows with 1 worker and 3 items (more items than the worker and its one
# compute-bound spare). A run marked "large" (over 2 million states) is compiled -O2 and started first; the others,
# whose compiling would take longer than their search, -O0. About 8 minutes of one core in all (2026-11-27), run on
# every core at once.
# SLIMPOOL_THOROUGH=1 adds the larger runs (about 25 minutes of one core more): the work-stealing refill in transit
# with 3 items (SpinThenPark 6.4e7 states, the guard 3.5e7), the slots with wake-all on shutdown and with a spare,
# spares with 3 items, a group of two turns with items that block and an abandon (2e7 to 3e7 states each, under a
# minute each; CI runs each option alone), SpinThenPark with every option at once (1.2e8 states, about 3 minutes,
# several GiB) and the group's 3-item run with two turns and a quantum of 2, its queue dropped and installed again
# (7.9e7 states, about 2 minutes; CI runs the same with one turn). Its runs store states compressed (COLLAPSE).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v spin >/dev/null 2>&1; then
  echo "installing spin (Debian package)"
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq spin) >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq spin >/dev/null
  fi
fi

stp=src/SlimPool/Scheduling/SpinThenParkIdleWait.pml
are=src/SlimPool/Scheduling/AutoResetEventIdleWait.pml
guard=src/SlimPool/Scheduling/StarvationGuard.pml
group=src/SlimPool/Groups/GroupTurns.pml
lanes=src/SlimPool/Scheduling/PriorityLanes.pml
laneshut=src/SlimPool/Scheduling/PriorityLanesShutdown.pml
drained=src/SlimPool/Groups/GroupDrained.pml
ring=src/SlimPool/Queues/LocalRunQueue.pml
watch=src/SlimPool/Diagnostics/SlowItemWatch.pml
exits=src/SlimPool/Workers/ExitBarrier.pml
r1="-DTHIEVES=1 -DPUSHES=6 -DLOOKS=4 -DTAKES=2"
r2="-DTHIEVES=2 -DPUSHES=4 -DLOOKS=2 -DTAKES=1"
g="-DWORKERS=2 -DPRODUCERS=2 -DPUSHES=1"
h="-DWORKERS=2 -DPRODUCERS=1 -DPUSHES=3 -DMAXTURNS=2 -DQUANTUM=2"
a="-DWORKERS=2 -DPRODUCERS=2 -DPUSHES=1"
b="-DWORKERS=2 -DPRODUCERS=1 -DPUSHES=3"
c="-DWORKERS=2 -DPRODUCERS=1 -DPUSHES=2"
d="-DWORKERS=1 -DPRODUCERS=1 -DPUSHES=3"
k="-DWORKERS=2 -DPRODUCERS=2 -DPUSHES=2"
q="-DWORKERS=1 -DPRODUCERS=3 -DPUSHES=1"
b1="-DWORKERS=1 -DPRODUCERS=2 -DPUSHES=2"
e="-DWORKERS=2 -DPRODUCERS=1 -DPUSHES=1"
runs=(
  "$stp|$a|none|large" "$stp|$a -DBROKEN|some" "$stp|$a -DBLOCKING|none|large" "$stp|$a -DSTOP|none|large"
  "$stp|$a -DSPARES=1|none|large" "$stp|$a -DSPARES=1 -DBROKEN|some" "$stp|$a -DSPARES=1 -DBROKEN_RETIRE|some"
  "$stp|$b|none|large" "$stp|$b -DBROKEN|some"
  "$stp|$b -DBLOCKING -DWS -DDECLINES=0 -DBROKEN_REFILL|some" "$stp|$c -DBLOCKING -DWS|none|large"
  "$stp|$b -DSPARES=1 -DBROKEN_RETIRE|some"
  "$stp|$b -DBATCH -DBLOCKING|none" "$stp|$b -DBATCH -DBLOCKING -DBROKEN|some"
  "$stp|$e -DBLOCKING -DSLOTS|none|large"
  "$stp|$e -DBLOCKING -DSLOTS -DBROKEN_WATCH|some" "$stp|$e -DBLOCKING -DSLOTS -DBROKEN_SLOTWAKE|some"
  "$are|$a|none" "$are|$a -DBROKEN|some" "$are|$a -DBLOCKING|none" "$are|$a -DBLOCKING -DBROKEN_CHAIN|some"
  "$are|$b|none" "$are|$b -DBROKEN|some" "$are|$b -DBLOCKING|none" "$are|$b -DBLOCKING -DBROKEN_CHAIN|some"
  "$are|$b -DBATCH -DBLOCKING|none" "$are|$b -DBATCH -DBLOCKING -DBROKEN_CHAIN|some"
  "$guard|$b|none|large" "$guard|$b -DOLD_ARMING|some|large"
  "$guard|$b -DWS -DDECLINES=0 -DBROKEN_REFILL|some" "$guard|$c -DWS|none|large"
  "$guard|$b -DCOMPUTE|none|large" "$guard|$a -DCOMPUTE|none|large" "$guard|$d -DCOMPUTE|none" "$guard|$d -DCOMPUTE -DSTRICT|some"
  "$guard|$d -DBROKEN_RUNNABLE|some"
  "$group|$g -DBLOCKING -DABANDON -DDROPS=0|none|large" "$group|$g -DBROKEN|some" "$group|$g -DABANDON -DBROKEN_SWEEP|some|large"
  "$group|$h -DABANDON -DBROKEN_SWEEP -DDROPS=0|some" "$group|$g -DBROKEN_DROP|some" "$group|$h -DBROKEN_DROP|some"
  "$group|-DWORKERS=2 -DPRODUCERS=1 -DPUSHES=3 -DBLOCKING -DABANDON -DDROPS=0|none|large"
  "$group|$k -DBATCH -DBLOCKING -DDROPS=0|none|large" "$group|$k -DBATCH -DBROKEN|some" "$group|$k -DBATCH -DBROKEN_DROP|some"
  "$group|$g -DDRAIN -DBLOCKING -DDROPS=0|none" "$group|$g -DDRAIN -DDROPS=0 -DBROKEN_NOWAIT|some"
  "$group|$g -DDRAIN -DMAXTURNS=2 -DDROPS=0|none" "$group|$q -DDRAIN -DDROPS=0|none|large" "$group|$q -DDRAIN -DDROPS=0 -DBROKEN_ENDWAIT|some|large" "$group|$q -DDRAIN -DDROPS=0 -DBROKEN_PUBGEN|some|large"
  "$group|$b1 -DBATCH -DDRAIN -DDROPS=0|none|large" "$group|$b1 -DBATCH -DDRAIN -DDROPS=0 -DBROKEN_NOWAIT|some|large"
  "$lanes|$a|none" "$lanes|$a -DTWO_WORDS|some" "$lanes|$b|none" "$lanes|$b -DTWO_WORDS|some"
  "$lanes|-DWORKERS=2 -DPRODUCERS=3 -DPUSHES=1|none"
  "$laneshut||none|large" "$laneshut|-DTICKETS_ONLY|some" "$laneshut|-DENQUEUE_FIRST|some"
  "$laneshut|-DLOW|none" "$laneshut|-DLOW -DTICKETS_ONLY|some"
  "$laneshut|-DDRAIN|none|large" "$laneshut|-DDRAIN -DLOW|none" "$laneshut|-DDRAIN -DBROKEN_LEAVE|some" "$laneshut|-DDRAIN -DLOW -DBROKEN_LEAVE|some"
  "$ring|$r1|none|large" "$ring|$r2|none|large" "$ring|$r1 -DBROKEN_ROOM|some" "$ring|$r1 -DBROKEN_SLOT|some" "$ring|$r2 -DBROKEN_SLOT|some"
  "$watch||none" "$watch|-DWORKERS=3|none" "$watch|-DBROKEN_RECHECK|some" "$watch|-DBROKEN_WAKE|some"
  "$exits||none" "$exits|-DOUTSIDE|none" "$exits|-DWORKERS=3 -DOUTSIDE|none" "$exits|-DWORKERS=1 -DSPARE -DOUTSIDE|none"
  "$exits|-DBROKEN_EARLY -DOUTSIDE|some" "$exits|-DBROKEN_NOPULSE -DOUTSIDE|some" "$exits|-DWORKERS=1 -DSPARE -DBROKEN_NOSPARE|some"
  "$exits|-DRETIRE -DOUTSIDE|none" "$exits|-DGUARD -DOUTSIDE|none" "$exits|-DWORKERS=1 -DSPARE -DRETIRE -DLATEPOST -DOUTSIDE|none"
  "$exits|-DWORKERS=2 -DSPARE -DRETIRE -DLATEPOST -DOUTSIDE|none" "$exits|-DWORKERS=1 -DSPARE -DGUARD -DRETIRE -DLATEPOST -DOUTSIDE|none|large"
  "$exits|-DRETIRE -DBROKEN_NORETIREWAKE|some" "$exits|-DWORKERS=1 -DSPARE -DRETIRE -DLATEPOST -DBROKEN_RETIRECLOSED|some"
  "$drained||none" "$drained|-DITEMS=4 -DQUANTUM=3|none" "$drained|-DBROKEN_ORDER|some" "$drained|-DITEMS=4 -DBROKEN_ORDER|some"
  "$drained|-DCONT|none|large" "$drained|-DCONT -DNO_SWEEP|none" "$drained|-DCONT -DNO_SWEEP -DBROKEN_MARK|some"
)
if [ "${SLIMPOOL_THOROUGH:-0}" = 1 ]; then
  runs+=("$stp|$b -DBLOCKING -DWS -DDECLINES=0|none|large" "$guard|$b -DWS -DDECLINES=0|none|large") # 6.4e7 and 3.5e7 states
  runs+=("$stp|$e -DBLOCKING -DSLOTS -DSTOP|none|large" "$stp|$e -DBLOCKING -DSLOTS -DSPARES=1|none|large") # 2.9e7, 2.6e7 states
  runs+=("$stp|$b -DSPARES=1|none|large" "$group|$g -DMAXTURNS=2 -DBLOCKING -DABANDON -DDROPS=0|none|large") # 2e7, 2.8e7 states
  runs+=("$stp|$b -DBLOCKING -DSPARES=1 -DWS -DDECLINES=0 -DSTOP|none|large" "$stp|-DWORKERS=2 -DPRODUCERS=2 -DPUSHES=2|none|large")
  runs+=("$group|$h -DBLOCKING -DABANDON|none|large" "$group|$g -DBLOCKING -DABANDON -DDROPS=2|none|large")
  runs+=("$group|$g -DBLOCKING -DABANDON -DDROPS=1|none|large" "$group|$k -DBATCH -DBLOCKING -DDROPS=1|none|large") # 1e8 states, 160 s each
  runs+=("$group|$k -DBATCH -DDRAIN -DDROPS=0|none|large") # 9.4e7 states, 150 s
  runs+=("$group|$h -DABANDON -DBROKEN_SWEEP|some|large")
  runs+=("$group|-DWORKERS=2 -DPRODUCERS=1 -DPUSHES=3 -DBLOCKING -DABANDON -DDROPS=1|none|large")
  runs+=("$group|$g -DMAXTURNS=2 -DBLOCKING -DABANDON -DDROPS=1|none|large")
  runs+=("$ring|-DTHIEVES=2 -DPUSHES=6 -DLOOKS=2 -DTAKES=1|none|large") # an overflow beside two thieves: 5.5e7 states, 100 s
  runs+=("$laneshut|-DPRODUCERS=4 -DLOW|none|large" "$laneshut|-DPRODUCERS=4|none|large") # 3.8e7 states, 100 s; 1.4e8 states, 400 s
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: generate, compile, search; its verdict line (and Spin's output on a failure) goes to $work/result-$1, and
# a file $work/failed-$1 marks a failure.
check_one() {
  local index=$1 model=$2 flags=$3 expect=$4 size=$5 args name dir out errors states result="$work/result-$1"
  read -r -a args <<< "$flags"
  local cflags=(-O0)
  if [ "$size" = large ]; then cflags=(-O2); fi
  if [ "$thorough" = 1 ]; then cflags+=(-DCOLLAPSE); fi
  name=$(basename "$model" .pml)
  dir="$work/run-$index"
  mkdir -p "$dir"
  local started=$SECONDS
  (cd "$dir" && spin "${args[@]}" -a "$root/$model" >/dev/null && gcc "${cflags[@]}" -DSAFETY -o pan pan.c 2>/dev/null)
  out=$(cd "$dir" && ./pan -m2000000 2>&1 || true)
  errors=$(echo "$out" | grep -oE 'errors: [0-9]+' | grep -oE '[0-9]+' | head -1)
  states=$(echo "$out" | grep -oE '[0-9.e+]+ states, stored' | head -1)
  if [ -z "$errors" ]; then
    { echo "model $name [$flags]: spin gave no verdict"; echo "$out"; } > "$result"; touch "$work/failed-$index"
  elif [ "$expect" = none ] && [ "$errors" != 0 ]; then
    { echo "model $name [$flags]: FAILED, $errors error(s)"; echo "$out" | head -20; } > "$result"; touch "$work/failed-$index"
  elif [ "$expect" = some ] && [ "$errors" = 0 ]; then
    echo "model $name [$flags]: spin found no error, but this variant is broken on purpose: the check cannot fail" > "$result"
    touch "$work/failed-$index"
  else
    echo "model $name [$flags]: errors $errors, as expected ($states, $((SECONDS - started)) s)" > "$result"
  fi
  rm -rf "$dir"
}

# The runs are independent and each uses one core: as many at once as there are cores (SLIMPOOL_MODEL_JOBS to
# choose), the large ones first, so that the small ones fill in behind them; the verdicts printed in the table's order.
root=$PWD
thorough=${SLIMPOOL_THOROUGH:-0}
jobs=${SLIMPOOL_MODEL_JOBS:-$(nproc 2>/dev/null || echo 1)}
for pass in large small; do
  for i in "${!runs[@]}"; do
    IFS='|' read -r model flags expect size <<< "${runs[$i]}"
    if [ "${size:-small}" != "$pass" ]; then continue; fi
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
      wait -n || true
    done
    check_one "$i" "$model" "$flags" "$expect" "$pass" &
  done
done
wait

status=0
for i in "${!runs[@]}"; do
  cat "$work/result-$i" 2>/dev/null || { echo "model run $i [${runs[$i]}]: no result"; status=1; }
  if [ -e "$work/failed-$i" ]; then
    status=1
  fi
done
exit $status

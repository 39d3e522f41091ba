#!/usr/bin/env bash
# Runs on a machine with many cores, from the folder that holds pack.tar.xz (made by eng/pack-for-many-cores.sh):
# the whole test suite, the composition hunt, and the comparison program on a set of scenarios, each bounded so that
# the whole run stays under about nine and a half minutes (SUITE_S, HUNT_S and BENCH_S, seconds, change the bounds;
# SUITE_S=0 or HUNT_S=0 skips that part; BENCH_ARGS adds options to each comparison run, e.g. "--pools all"). Results
# go to $OUT (default: ./out): suite.log, compose.log, bench*.json and bench*.md. Usage: many-cores.sh PACK_DIR
# [SCENARIOS...], each argument a comma-separated group of scenarios (default: two groups of five). The pack is unpacked
# inside PACK_DIR, so that tests which read the repository find it above their folder when PACK_DIR is the repository's .dev.
set -u
pack=$1; shift
out=${OUT:-$PWD/out}; mkdir -p "$out"
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start ))s] $*"; }
work=$(cd "$pack" && pwd)/unpacked; rm -rf "$work"; mkdir -p "$work"; cd "$work"
tar -xJf "$pack/pack.tar.xz" || exit 3
export DOTNET_ROOT=$work/dn PATH=$work/dn:$PATH DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
vstest="dn/sdk/$(cat sdk-version)/vstest.console.dll"
say "unpacked; $(nproc) cores"

if [ "${SUITE_S:-230}" -gt 0 ]; then
say "suite"
timeout "${SUITE_S:-230}" dotnet "$vstest" tests/SlimPool.Tests.dll > "$out/suite.log" 2>&1; echo "rc=$?" >> "$out/suite.log"
grep -E "^\s+Failed |Total tests|Passed!|Failed!" "$out/suite.log" | head -30
fi

if [ "${HUNT_S:-75}" -gt 0 ]; then
say "composition hunt"
SLIMPOOL_COMPOSE_SECONDS=$(( ${HUNT_S:-75} - 25 )) timeout "${HUNT_S:-75}" dotnet "$vstest" tests/SlimPool.Tests.dll \
    --TestCaseFilter:"FullyQualifiedName~Programs_EveryFeatureCombined_KeepEveryPromise" > "$out/compose.log" 2>&1
echo "rc=$?" >> "$out/compose.log"; tail -2 "$out/compose.log"
fi

cd bench
groups=("$@")
[ ${#groups[@]} -eq 0 ] && groups=(queue-drain,tiny-work,self-requeue,serial-queues,serial-pingpong fan-out,akka-pingpong,real-work,thread-count,wake-latency)
i=1
for scenarios in "${groups[@]}"; do
    say "bench $i: $scenarios"
    timeout "${BENCH_S:-125}" ./SlimPool.Bench --charts "" --repeat 5 ${BENCH_ARGS:-} --scenario "$scenarios" --json "$out/bench$i.json" \
        --markdown "$out/bench$i.md" > "$out/bench$i.log" 2>&1
    cat "$out/bench$i.md" 2>/dev/null
    i=$((i + 1))
done
say "done"

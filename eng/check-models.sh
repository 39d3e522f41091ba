#!/usr/bin/env bash
# Model-checks the idle protocols with Spin (Debian package "spin"): each model must verify with no errors,
# and its BROKEN variant (the worker's re-check removed) must fail, so the check itself can fail.
# Sizes: 2 workers with 2 producers × 1 item and with 1 producer × 3 items (seconds each). SLIMPOOL_THOROUGH=1
# adds 2 workers, 2 producers × 2 items (about 10^8 states and 3 minutes for SpinThenPark; 1.6 × 10^8 states,
# 4.5 minutes and about 9 GiB with the spare; state vectors are compressed, -DCOLLAPSE).
# SpinThenPark is checked once more with the second worker a spare that may time out and retire (-DSPARES=1);
# its "broken-retire" variant (a popped spare retires anyway) must fail too.
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

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
configs=("-DPRODUCERS=2 -DPUSHES=1" "-DPRODUCERS=1 -DPUSHES=3")
[ "${SLIMPOOL_THOROUGH:-0}" = 1 ] && configs+=("-DPRODUCERS=2 -DPUSHES=2")
# check NAME MODEL VARIANT EXPECT_ERRORS FLAGS...: EXPECT_ERRORS is "none" (must verify) or "some" (must fail)
check() {
  local name=$1 model=$2 variant=$3 expect=$4
  shift 4
  local dir="$work/$name-$variant-$RANDOM"
  mkdir -p "$dir"
  (cd "$dir" && spin "$@" -a "$OLDPWD/$model" >/dev/null && gcc -O2 -DSAFETY -DCOLLAPSE -o pan pan.c 2>/dev/null)
  local out errors states
  out=$(cd "$dir" && ./pan -m2000000 2>&1 || true)
  errors=$(echo "$out" | grep -oE 'errors: [0-9]+' | grep -oE '[0-9]+' | head -1)
  states=$(echo "$out" | grep -oE '[0-9.e+]+ states, stored' | head -1)
  if [ -z "$errors" ]; then
    echo "model $name ($variant): spin gave no verdict"; echo "$out"; status=1
  elif [ "$expect" = none ] && [ "$errors" != 0 ]; then
    echo "model $name [$*]: FAILED, $errors error(s): a lost wake-up or a herd"; echo "$out" | head -20; status=1
  elif [ "$expect" = some ] && [ "$errors" = 0 ]; then
    echo "model $name [$*] ($variant): spin found no error, but it must: the check cannot fail"; status=1
  else
    echo "model $name [$*] ($variant): errors $errors as expected ($states)"
  fi
}

for model in src/SlimPool/Scheduling/*.pml; do
  name=$(basename "$model" .pml)
  for config in "${configs[@]}"; do
    read -r -a flags <<< "-DWORKERS=2 $config"
    check "$name" "$model" correct none "${flags[@]}"
    check "$name" "$model" broken some "${flags[@]}" -DBROKEN
    if [ "$name" = SpinThenParkIdleWait ]; then
      check "$name" "$model" spare none "${flags[@]}" -DSPARES=1
      check "$name" "$model" spare-broken some "${flags[@]}" -DSPARES=1 -DBROKEN
      check "$name" "$model" spare-broken-retire some "${flags[@]}" -DSPARES=1 -DBROKEN_RETIRE
    fi
  done
done
exit $status

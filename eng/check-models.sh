#!/usr/bin/env bash
# Model-checks the idle protocols with Spin (Debian package "spin"): each model must verify with no errors,
# and its BROKEN variant (the worker's re-check removed) must fail, so the check itself can fail.
# Sizes: 2 workers with 2 producers × 1 item and with 1 producer × 3 items (seconds each). SLIMPOOL_THOROUGH=1
# adds 2 workers, 2 producers × 2 items (about 10^8 states, 3 minutes and 8 GiB for SpinThenPark).
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
for model in src/SlimPool/Scheduling/*.pml; do
  name=$(basename "$model" .pml)
  for config in "${configs[@]}"; do
  for variant in correct broken; do
    dir="$work/$name-$variant-${#config}-$RANDOM"
    mkdir -p "$dir"
    read -r -a flags <<< "-DWORKERS=2 $config"
    [ "$variant" = broken ] && flags+=(-DBROKEN)
    (cd "$dir" && spin "${flags[@]}" -a "$OLDPWD/$model" >/dev/null && gcc -O2 -DSAFETY -o pan pan.c 2>/dev/null)
    out=$(cd "$dir" && ./pan -m2000000 2>&1 || true)
    errors=$(echo "$out" | grep -oE 'errors: [0-9]+' | grep -oE '[0-9]+' | head -1)
    states=$(echo "$out" | grep -oE '[0-9.e+]+ states, stored' | head -1)
    if [ -z "$errors" ]; then
      echo "model $name ($variant): spin gave no verdict"; echo "$out"; status=1
    elif [ "$variant" = correct ] && [ "$errors" != 0 ]; then
      echo "model $name [$config]: FAILED, $errors error(s): a lost wake-up or a herd"; echo "$out" | head -20; status=1
    elif [ "$variant" = broken ] && [ "$errors" = 0 ]; then
      echo "model $name [$config] (re-check removed): spin found no error, but it must: the check cannot fail"; status=1
    else
      echo "model $name [$config] ($variant): errors $errors as expected ($states)"
    fi
  done
  done
done
exit $status

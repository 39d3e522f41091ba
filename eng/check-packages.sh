#!/usr/bin/env bash
# Packs the solution (dotnet pack, Release) into a temporary folder and checks each package: exactly the
# expected packages come out (test and bench projects are not packable), and each .nupkg holds its dll, its XML
# docs, README.md and LICENSE, with the readme and license declared in its nuspec; each has a .snupkg with its
# pdb. Exits non-zero naming what is missing. Pass --no-build to pack what an earlier
# `dotnet build -c Release` produced (what .ci/run does).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(SlimPool SlimPool.Extensions.DependencyInjection SlimPool.Akka SlimPool.Reactive SlimPool.ProtoActor)

pack_args=()
for arg in "$@"; do
  case "$arg" in
    --no-build) pack_args+=(--no-build) ;;
    *) echo "check-packages: unknown argument '$arg' (only --no-build)" >&2; exit 2 ;;
  esac
done

if ! command -v unzip >/dev/null 2>&1; then
  echo "check-packages: installing unzip (Debian package)"
  if [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq unzip) >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq unzip >/dev/null
  fi
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

if ! dotnet pack SlimPool.slnx -c Release -o "$out" "${pack_args[@]}" --nologo -v quiet > "$out/pack.log" 2>&1; then
  cat "$out/pack.log" >&2
  echo "check-packages: dotnet pack failed" >&2
  exit 1
fi

errors=0
fail() {
  echo "check-packages: $*" >&2
  errors=$((errors + 1))
}

# Exactly the expected packages, nothing else (a test or bench project that became packable shows up here).
expected=$(for id in "${packages[@]}"; do echo "$id"; done | sort)
actual=$(find "$out" -maxdepth 1 -name '*.nupkg' -printf '%f\n' | sed -E 's/\.[0-9]+\.[0-9]+\.[0-9]+([-.][0-9A-Za-z.-]+)?\.nupkg$//' | sort)
if [ "$expected" != "$actual" ]; then
  fail "expected packages [$(echo $expected)], got [$(echo $actual)]"
fi

for id in "${packages[@]}"; do
  nupkg=$(find "$out" -maxdepth 1 -regextype posix-extended -regex ".*/${id//./\\.}\.[0-9]+\.[0-9]+\.[0-9]+([-.][0-9A-Za-z.-]+)?\.nupkg" | head -n 1)
  if [ -z "$nupkg" ]; then
    fail "$id: no .nupkg produced"
    continue
  fi

  before=$errors
  listing=$(unzip -l "$nupkg")
  for entry in "lib/net10.0/$id.dll" "lib/net10.0/$id.xml" "README.md" "LICENSE"; do
    grep -qE "[[:space:]]${entry//./\\.}\$" <<< "$listing" || fail "$(basename "$nupkg"): missing $entry"
  done

  nuspec=$(unzip -p "$nupkg" "$id.nuspec")
  grep -q '<readme>README.md</readme>' <<< "$nuspec" || fail "$(basename "$nupkg"): nuspec does not declare README.md as its readme"
  grep -q '<license type="expression">MIT</license>' <<< "$nuspec" || fail "$(basename "$nupkg"): nuspec does not declare the MIT license"
  grep -q '<repository type="git" url="https://github.com/slimpool/slimpool"' <<< "$nuspec" || fail "$(basename "$nupkg"): nuspec has no repository"

  snupkg="${nupkg%.nupkg}.snupkg"
  if [ ! -f "$snupkg" ]; then
    fail "$id: no .snupkg (symbols) produced"
  else
    grep -qE "[[:space:]]lib/net10\.0/${id//./\\.}\.pdb\$" <<< "$(unzip -l "$snupkg")" || fail "$(basename "$snupkg"): missing lib/net10.0/$id.pdb"
  fi

  [ "$errors" -eq "$before" ] && echo "check-packages: $(basename "$nupkg") ok (dll, xml docs, README.md, LICENSE, symbols)"
done

if [ "$errors" -ne 0 ]; then
  echo "check-packages: $errors problem(s) in the packages" >&2
  exit 1
fi

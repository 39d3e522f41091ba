#!/usr/bin/env bash
# Accepts the current public API as the new baseline, after a deliberate change: rewrites src/*/PublicAPI.txt
# (the reflection listing the tests compare against) and repacks eng/api-baseline/*.nupkg (what `dotnet pack`'s
# package validation compares against; a breaking change fails the pack until the baseline is replaced). Commit
# the changed files with the API change.
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
dotnet build SlimPool.slnx -c Release --nologo -v quiet
# Pack without validation: the point is to replace the baseline the validation would compare against.
dotnet pack SlimPool.slnx -c Release --no-build -o "$out" --nologo -v quiet -p:EnablePackageValidation=false
for package in SlimPool SlimPool.Extensions.DependencyInjection SlimPool.Akka SlimPool.Reactive SlimPool.ProtoActor; do
  cp "$(ls "$out/$package".[0-9]*.nupkg | grep -v snupkg | head -1)" "eng/api-baseline/$package.nupkg"
done
SLIMPOOL_ACCEPT_API=1 dotnet test tests/SlimPool.Tests -c Release --no-build --filter FullyQualifiedName~PublicApi --nologo -v quiet
echo "baseline updated: eng/api-baseline/*.nupkg and src/*/PublicAPI.txt"

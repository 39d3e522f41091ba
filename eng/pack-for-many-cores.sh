#!/usr/bin/env bash
# Packs what a machine with many cores and no .NET SDK needs to run the test suite and the comparison program:
# the runtime this SDK runs on (host, hostfxr, Microsoft.NETCore.App), the SDK's test platform (vstest.console and its
# test host, which runs an xUnit v2 assembly without the SDK), the tests built in Debug, and the comparison program
# published for linux-x64 (framework-dependent: the runtime above runs it). Out: .dev/pack.tar.xz (about 36 MB), and
# .dev/many-cores.sh beside it, which unpacks the pack and runs the checks (see its header). Keep .dev/ out of git
# (.git/info/exclude) and carry it to the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(dirname "$(readlink -f "$(command -v dotnet)")")
sdk=$(dotnet --version)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

dotnet build tests/SlimPool.Tests -c Debug -v q -nologo
dotnet publish bench/SlimPool.Bench -c Release -r linux-x64 --self-contained false -o "$stage/bench" -v q -nologo

mkdir -p "$stage/dn/host" "$stage/dn/shared" "$stage/dn/sdk/$sdk"
cp "$root/dotnet" "$stage/dn/"
cp -r "$root/host/fxr" "$stage/dn/host/"
cp -r "$root/shared/Microsoft.NETCore.App" "$stage/dn/shared/"
(cd "$root/sdk/$sdk" && cp -r vstest.console.* testhost* datacollector* Microsoft.TestPlatform.*.dll \
    Microsoft.VisualStudio.TestPlatform.*.dll Microsoft.Extensions.FileSystemGlobbing.dll \
    Microsoft.Extensions.DependencyModel.dll Newtonsoft.Json.dll Extensions "$stage/dn/sdk/$sdk/")
cp -r tests/SlimPool.Tests/bin/Debug/net10.0 "$stage/tests"
rm -rf "$stage/tests/arm64" "$stage/tests/x86" # TraceEvent's native helpers for other machines
echo "$sdk" > "$stage/sdk-version"

mkdir -p .dev
tar -C "$stage" -cf - dn tests bench sdk-version | xz -6 -T0 > .dev/pack.tar.xz
cp eng/many-cores.sh .dev/many-cores.sh
ls -la .dev

#!/usr/bin/env bash
# Serves Pigeon's own test plugin (TestPlugin.swift and the code Pigeon generated for it, as
# flutter/packages checks them in) from a host of its own, and checks what its Dart integration
# tests check of its threading and its timer-driven event streams.
#
#   Scripts/pigeon/test-plugin/check.sh --checkout FLUTTER_PACKAGES [--work DIR] [VERSION ...]
#
# FLUTTER_PACKAGES is a clone of flutter/packages with its pigeon-v* tags (the script never fetches
# anything; nothing of Pigeon's is copied into this repository). VERSIONs default to 26.0.0 and
# 28.0.0. For each one, from a fresh clone, it:
#  1. takes TestPlugin.swift, CoreTests.gen.swift and EventChannelTests.gen.swift from the tag's
#     platform_tests/test_plugin/darwin sources and adapts them with `channelbridge pigeon adapt`;
#  2. leaves out TestPlugin.swift's @ProxyApi parts, which this project does not support (they
#     need the Objective-C runtime, and ProxyApiTests.gen.swift is not compiled): the lines naming
#     `proxyApiRegistrar` or `ProxyApiDelegate()`, and everything from its first top-level
#     `class ProxyApi…` to the end of the file (the ProxyApi delegates, which come last). It prints
#     how many lines that removed; nothing else in the file changes;
#  3. builds, in the work directory (default: a new temporary one; --work reuses a build), a
#     package outside this one that depends on this checkout by path: the plugin (Swift 5 mode, as
#     Pigeon builds it), `test-plugin-host` (Scripts/pigeon/test-plugin/Sources: the plugin
#     registered in every session, `ExtensionHostCommand.main(plugins:)` inside
#     `FlutterRunLoop.runMain`) and `test-plugin-check` (the checks, written with ChannelBridge);
#  4. starts the host and runs the checks: `defaultIsMainThread` answers true (a handler without a
#     task queue runs on the main thread), `taskQueueIsBackgroundThread` (and, when the tag has it,
#     `asyncTaskQueueIsBackgroundThread`) answers true (a background task queue runs off it), and
#     `streamInts` and `streamConsistentNumbers` (instances 1 and 2), which send from a repeating
#     `Timer` through `DispatchQueue.main`, deliver every event and end; then ends the host with
#     `channelbridge exit`.
#
# Prints one line per check ("ok" or "DIFF" with both values) and, last, "N of M checks as
# expected"; exit status 0 when all are, 1 when any differs, 2 when a step fails, 64 usage.
set -euo pipefail
usage="usage: check.sh --checkout FLUTTER_PACKAGES [--work DIR] [VERSION ...]"
root=$(cd "$(dirname "$0")/../../.." && pwd)
here="$root/Scripts/pigeon/test-plugin"

checkout="" work="" versions=()
while [ $# -gt 0 ]; do
  case "$1" in
    --checkout) checkout=${2:?$usage}; shift 2 ;;
    --work) work=${2:?$usage}; shift 2 ;;
    -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check.sh: unknown option $1" >&2; echo "$usage" >&2; exit 64 ;;
    *) versions+=("$1"); shift ;;
  esac
done
[ -n "$checkout" ] || { echo "$usage" >&2; exit 64; }
[ ${#versions[@]} -gt 0 ] || versions=(26.0.0 28.0.0)
fail() { echo "check.sh: $*" >&2; exit 2; }
git -C "$checkout" rev-parse --git-dir > /dev/null 2>&1 || fail "$checkout is not a git clone"

swift build --package-path "$root" --product channelbridge > /dev/null || fail "swift build of channelbridge failed"
cli=$(swift build --package-path "$root" --show-bin-path)/channelbridge

if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/pigeon-test-plugin-XXXXXX"); fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
echo "work directory: $work"
package="$work/package"
mkdir -p "$package/Sources"
rm -rf "$package/Sources/test-plugin-host" "$package/Sources/test-plugin-check"
cp -R "$here/Sources/test-plugin-host" "$here/Sources/test-plugin-check" "$package/Sources/"
cat > "$package/Package.swift" <<PACKAGE
// swift-tools-version:6.2
import PackageDescription

// Written by Scripts/pigeon/test-plugin/check.sh: Pigeon's test plugin, adapted, and a host.
let package = Package(
    name: "PigeonTestPluginCheck",
    dependencies: [.package(name: "ChannelBridge", path: "$root")],
    targets: [
        .target(name: "test_plugin", dependencies: [.product(name: "Flutter", package: "ChannelBridge")],
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "test-plugin-host", dependencies: [
            "test_plugin", .product(name: "ChannelBridgeHost", package: "ChannelBridge"),
            .product(name: "Flutter", package: "ChannelBridge"),
        ]),
        .executableTarget(name: "test-plugin-check", dependencies: [.product(name: "ChannelBridge", package: "ChannelBridge")]),
    ]
)
PACKAGE

passed=0 total=0
for version in "${versions[@]}"; do
  echo "== pigeon-v$version"
  sources="$package/Sources/test_plugin"
  rm -rf "$sources"
  mkdir -p "$sources"
  from=packages/pigeon/platform_tests/test_plugin/darwin/test_plugin/Sources/test_plugin
  for file in TestPlugin.swift CoreTests.gen.swift EventChannelTests.gen.swift; do
    git -C "$checkout" show "pigeon-v$version:$from/$file" > "$sources/$file" 2> /dev/null \
      || fail "no $from/$file at pigeon-v$version in $checkout"
  done
  before=$(wc -l < "$sources/TestPlugin.swift")
  awk '/^class ProxyApi/ { exit } /proxyApiRegistrar|ProxyApiDelegate\(\)/ { next } { print }' \
    "$sources/TestPlugin.swift" > "$sources/TestPlugin.swift.kept"
  mv "$sources/TestPlugin.swift.kept" "$sources/TestPlugin.swift"
  echo "TestPlugin.swift: $((before - $(wc -l < "$sources/TestPlugin.swift"))) of $before lines left out (@ProxyApi)"
  for file in "$sources"/*.swift; do
    "$cli" pigeon adapt "$file" > /dev/null || fail "pigeon adapt $file failed"
  done
  echo "building (the first build compiles ChannelBridge too; minutes)"
  swift build --package-path "$package" > "$work/build-$version.log" 2>&1 \
    || { tail -40 "$work/build-$version.log" >&2; fail "swift build for pigeon-v$version failed (log: $work/build-$version.log)"; }
  bin=$(swift build --package-path "$package" --show-bin-path)

  run="$work/run-$version"
  rm -rf "$run"
  mkdir -p "$run"
  socket="$run/host.sock"
  : > "$run/host.out"
  "$bin/test-plugin-host" --socket "$socket" --data-dir "$run/data" > "$run/host.out" 2> "$run/host.err" &
  host_pid=$!
  trap 'kill $host_pid 2> /dev/null || true' EXIT
  tries=0
  until grep -q '^ready' "$run/host.out"; do
    kill -0 "$host_pid" 2> /dev/null || fail "the host exited before it was ready: $(cat "$run/host.err")"
    tries=$((tries + 1))
    [ $tries -lt 300 ] || fail "the host was not ready within 30 s"
    sleep 0.1
  done
  async=()
  if grep -q asyncTaskQueueIsBackgroundThread "$sources/CoreTests.gen.swift"; then async=(--async); fi
  status=0
  output=$("$bin/test-plugin-check" "$socket" "${async[@]}") || status=$?
  printf '%s\n' "$output"
  [ $status -le 1 ] || fail "test-plugin-check failed (status $status)"
  "$cli" exit --socket "$socket" > /dev/null || fail "channelbridge exit failed"
  wait "$host_pid" || fail "the host exited with status $?: $(cat "$run/host.err")"
  trap - EXIT
  counts=$(printf '%s\n' "$output" | tail -1 | sed -n 's/.*: \([0-9]*\) of \([0-9]*\) checks as expected$/\1 \2/p')
  [ -n "$counts" ] || fail "test-plugin-check printed no count"
  passed=$((passed + ${counts% *})) total=$((total + ${counts#* }))
done
echo "$passed of $total checks as expected"
[ "$passed" -eq "$total" ]

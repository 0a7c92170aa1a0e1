#!/usr/bin/env bash
# Serves two of flutter/packages' plugins, their darwin Swift unchanged but for
# `channelbridge pigeon adapt`, from a host of their own, and drives them as their Dart halves do.
#
#   Scripts/flutter-plugins/check.sh [--work DIR] FOLDER
#
# FOLDER holds the plugins' darwin Swift sources, copied there by you (a flutter/packages checkout
# will do; the script never fetches anything): the folder with SharedPreferencesPlugin.swift
# (shared_preferences_foundation) and the one with PathProviderPlugin.swift
# (path_provider_foundation), each with its messages.g.swift beside it. Checked with
# shared_preferences_foundation 2.5.6 and path_provider_foundation 2.5.1.
#
# From a fresh clone, it:
#  1. builds `channelbridge` here and adapts copies of the plugin files with `pigeon adapt`;
#  2. builds, in the work directory (default: a new temporary one; --work reuses a build), a
#     package outside this one that depends on this checkout by path: one target per plugin
#     (Swift 5 mode, as their own Package.swift builds them), `plugins-host`
#     (Scripts/flutter-plugins/Sources/plugins-host: both plugins registered in every session,
#     `ExtensionHostCommand.main(plugins:)` inside `FlutterRunLoop.runMain`) and `plugins-check`
#     (the Dart halves' messages, written with ChannelBridge's codec);
#  3. puts an Info.plist with CFBundleIdentifier beside the executables (Linux Foundation reads
#     `Bundle.main.bundleIdentifier` only from there, and the host names its sandbox by it) and
#     starts the host with one entitled --app-group, on a fresh data directory;
#  4. runs `plugins-check first` (path_provider's directories and container; UserDefaultsApi's
#     set, getValue, getAll, getKeys, remove and clear on the standard suite and the group's;
#     LegacyUserDefaultsApi's), reads a value the plugin set in the group with
#     `channelbridge prefs get --data-dir`, restarts the host, writes two values with
#     `channelbridge prefs set --data-dir`, and runs `plugins-check second` (what persisted, and
#     those two values read through the plugin).
#
# Prints one line per reply or read ("ok" or "DIFF" with both values) and, last,
# "N of M replies as expected"; exit status 0 when all are, 1 when any differs, 2 when a step
# fails (a build, the host), 64 usage. Needs `swift` (6.3) on PATH.
set -euo pipefail
usage="usage: check.sh [--work DIR] FOLDER"
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/Scripts/flutter-plugins"

work="" folder=""
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work=${2:?$usage}; shift 2 ;;
    -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check.sh: unknown option $1" >&2; echo "$usage" >&2; exit 64 ;;
    *) [ -z "$folder" ] || { echo "$usage" >&2; exit 64; }; folder=$1; shift ;;
  esac
done
[ -n "$folder" ] || { echo "$usage" >&2; exit 64; }
[ -d "$folder" ] || { echo "check.sh: $folder: no such folder" >&2; exit 64; }

fail() { echo "check.sh: $*" >&2; exit 2; }

# The one folder holding FILE under $folder.
source_folder() {
  local found
  found=$(find "$folder" -name "$1" -type f | sort)
  [ -n "$found" ] || fail "no $1 under $folder"
  [ "$(printf '%s\n' "$found" | wc -l)" -eq 1 ] || fail "more than one $1 under $folder: $(echo $found)"
  dirname "$found"
}
shared_preferences=$(source_folder SharedPreferencesPlugin.swift)
path_provider=$(source_folder PathProviderPlugin.swift)

swift build --package-path "$root" --product channelbridge > /dev/null || fail "swift build of channelbridge failed"
cli=$(swift build --package-path "$root" --show-bin-path)/channelbridge

if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/flutter-plugins-XXXXXX"); fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
echo "work directory: $work"
package="$work/package"
rm -rf "$package/Sources"
mkdir -p "$package/Sources"
cp -R "$here/Sources/plugins-host" "$here/Sources/plugins-check" "$package/Sources/"
for plugin in shared_preferences_foundation path_provider_foundation; do
  if [ $plugin = shared_preferences_foundation ]; then from=$shared_preferences; else from=$path_provider; fi
  mkdir -p "$package/Sources/$plugin"
  for file in "$from"/*.swift; do
    cp "$file" "$package/Sources/$plugin/"
    "$cli" pigeon adapt "$package/Sources/$plugin/$(basename "$file")" || fail "pigeon adapt $file failed"
  done
done
cat > "$package/Package.swift" <<EOF
// swift-tools-version:6.2
import PackageDescription

// Written by Scripts/flutter-plugins/check.sh: flutter/packages' plugins, adapted, and a host.
let package = Package(
    name: "FlutterPluginsCheck",
    dependencies: [.package(name: "ChannelBridge", path: "$root")],
    targets: [
        .target(name: "shared_preferences_foundation", dependencies: [.product(name: "Flutter", package: "ChannelBridge")],
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .target(name: "path_provider_foundation", dependencies: [.product(name: "Flutter", package: "ChannelBridge")],
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "plugins-host", dependencies: [
            "shared_preferences_foundation", "path_provider_foundation",
            .product(name: "ChannelBridgeHost", package: "ChannelBridge"),
            .product(name: "Flutter", package: "ChannelBridge"),
        ]),
        .executableTarget(name: "plugins-check", dependencies: [.product(name: "ChannelBridge", package: "ChannelBridge")]),
    ]
)
EOF
echo "building the host package (the first build compiles ChannelBridge too; minutes)"
swift build --package-path "$package" > "$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; fail "swift build of the host package failed (log: $work/build.log)"; }
bin=$(swift build --package-path "$package" --show-bin-path)

bundle_identifier=com.example.pluginscheck
group=group.com.example.pluginscheck
cat > "$bin/Info.plist" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CFBundleIdentifier</key>
	<string>$bundle_identifier</string>
</dict>
</plist>
EOF

run="$work/run"
rm -rf "$run"
mkdir -p "$run"
data="$run/data"
socket="$run/host.sock"
host_pid=""
stop_host() {
  if [ -n "$host_pid" ]; then kill "$host_pid" 2> /dev/null || true; wait "$host_pid" 2> /dev/null || true; fi
}
trap stop_host EXIT
start_host() {
  : > "$run/host.out"
  # No --bundle-identifier: the host names its sandbox by the Info.plist, as Bundle.main is named.
  "$bin/plugins-host" --socket "$socket" --data-dir "$data" --app-group "$group" > "$run/host.out" 2>> "$run/host.err" &
  host_pid=$!
  local tries=0
  until grep -q '^ready' "$run/host.out"; do
    kill -0 "$host_pid" 2> /dev/null || fail "the host exited before it was ready: $(cat "$run/host.err")"
    tries=$((tries + 1))
    [ $tries -lt 300 ] || fail "the host was not ready within 30 s"
    sleep 0.1
  done
}
end_host() {
  "$cli" exit --socket "$socket" > /dev/null || fail "channelbridge exit failed"
  wait "$host_pid" || fail "the host exited with status $?: $(cat "$run/host.err")"
  host_pid=""
}

passed=0 total=0
# Runs a plugins-check phase, echoing its lines and adding its counts.
phase() {
  local output status=0
  output=$("$bin/plugins-check" "$1" "$socket" "$data" "$group" "$bundle_identifier") || status=$?
  printf '%s\n' "$output"
  [ $status -le 1 ] || fail "plugins-check $1 failed (status $status)"
  local counts
  counts=$(printf '%s\n' "$output" | tail -1 | sed -n 's/.*: \([0-9]*\) of \([0-9]*\) replies as expected$/\1 \2/p')
  [ -n "$counts" ] || fail "plugins-check $1 printed no count"
  passed=$((passed + ${counts% *})) total=$((total + ${counts#* }))
}
# Compares what a command printed with what is expected, as one more check.
expect_output() {
  local label=$1 expected=$2 actual
  shift 2
  actual=$("$@" 2>&1) || true
  total=$((total + 1))
  if [ "$actual" = "$expected" ]; then
    passed=$((passed + 1)); echo "ok   $label -> $actual"
  else
    echo "DIFF $label: expected $expected, got $actual"
  fi
}

start_host
phase first
expect_output "channelbridge prefs get fromPlugin --data-dir (set through the plugin)" '"set through the plugin"' \
  "$cli" prefs get fromPlugin --app-group "$group" --data-dir "$data"
expect_output "channelbridge prefs get fromPlugin --socket (the host's own app-group plugin)" '"set through the plugin"' \
  "$cli" prefs get fromPlugin --app-group "$group" --socket "$socket"
end_host
start_host
"$cli" prefs set fromCLI "set by channelbridge prefs" --app-group "$group" --data-dir "$data" || fail "prefs set failed"
"$cli" prefs set fromCLIInt 12 --type int --app-group "$group" --data-dir "$data" || fail "prefs set failed"
phase second
end_host

echo "$passed of $total replies as expected"
[ "$passed" -eq "$total" ]

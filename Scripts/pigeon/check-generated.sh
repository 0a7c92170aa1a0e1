#!/usr/bin/env bash
# Compiles Pigeon's generated Swift against this package's `Flutter` module, after
# `channelbridge pigeon adapt`, as a user's target would compile it (Swift 5 language mode, as
# Pigeon's own test plugin builds it).
#
#   Scripts/pigeon/check-generated.sh --checkout FLUTTER_PACKAGES [--from VERSION]
#       every pigeon-v* tag of a flutter/packages clone (with its tags) from VERSION (default
#       22.4.1) on: the Swift Pigeon checks in for its tests and example at that tag; one line per tag
#   Scripts/pigeon/check-generated.sh FOLDER...
#       every *.swift file under each FOLDER (for instance one folder per Pigeon version); one line
#       per folder
#
# Runs from a fresh clone: it builds what it needs first (`swift build`, the `Flutter` target and
# the `channelbridge` CLI, in debug). A line says "ok (N files)" or names the files that failed;
# their compiler output is kept in the work directory it prints. The last line counts what
# compiled; the exit status is 1 if anything did not. @ProxyApi output (ProxyApiTests.gen.swift)
# is skipped: it needs the Objective-C runtime (objc_setAssociatedObject, NSMapTable). Pigeon's
# code is only read from the checkout or the folders, never copied into this repository.
set -euo pipefail
usage="usage: check-generated.sh --checkout FLUTTER_PACKAGES [--from VERSION] | FOLDER..."
root=$(cd "$(dirname "$0")/../.." && pwd)

checkout="" from="22.4.1" folders=()
while [ $# -gt 0 ]; do
  case "$1" in
    --checkout) checkout=${2:?$usage}; shift 2 ;;
    --from) from=${2:?$usage}; shift 2 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    -*) echo "check-generated.sh: unknown option $1" >&2; echo "$usage" >&2; exit 64 ;;
    *) folders+=("$1"); shift ;;
  esac
done
if [ -z "$checkout" ] && [ ${#folders[@]} -eq 0 ]; then echo "$usage" >&2; exit 64; fi

# What a dependent target's compile sees: the Swift modules, and the module map of the C target
# under ChannelBridgePlatform (SwiftPM writes it into the build folder, not the sources).
swift build --package-path "$root" --target Flutter > /dev/null
swift build --package-path "$root" --product channelbridge > /dev/null
bin=$(swift build --package-path "$root" --show-bin-path)
cli=$bin/channelbridge
flags=(-c -parse-as-library -swift-version 5 -I "$bin/Modules"
       -Xcc "-fmodule-map-file=$bin/CChannelBridgeSyscalls.build/module.modulemap"
       -Xcc "-I$root/Sources/CChannelBridgeSyscalls/include")
work=$(mktemp -d "${TMPDIR:-/tmp}/pigeon-check-XXXXXX")
echo "work directory: $work"

checked=0 passed=0
# Adapts and compiles the files listed on stdin (paths to copies in $1); prints the line for $2.
compile_all() {
  local dir=$1 label=$2 failed="" count=0 file
  while IFS= read -r file; do
    count=$((count + 1))
    if ! "$cli" pigeon adapt "$file" > "$file.log" 2>&1 < /dev/null \
        || ! swiftc "${flags[@]}" "$file" -o "$dir/out.o" > "$file.log" 2>&1 < /dev/null; then
      failed="$failed $(basename "$file")"
    fi
  done
  checked=$((checked + 1))
  if [ "$count" -eq 0 ]; then
    echo "$label: no Swift files"
  elif [ -z "$failed" ]; then
    passed=$((passed + 1))
    echo "$label: ok ($count files)"
  else
    echo "$label: FAILED:$failed"
  fi
}

if [ -n "$checkout" ]; then
  tags=$(git -C "$checkout" tag --list 'pigeon-v*' | sort -V | sed -n "/^pigeon-v${from//./\\.}\$/,\$p")
  [ -n "$tags" ] || { echo "check-generated.sh: no tag pigeon-v$from in $checkout" >&2; exit 65; }
  for tag in $tags; do
    dir="$work/$tag"
    mkdir -p "$dir"
    git -C "$checkout" ls-tree -r --name-only "$tag" packages/pigeon/platform_tests packages/pigeon/example \
      | grep -E '\.(gen|g)\.swift$' | grep -v -i alternate | grep -v ProxyApiTests \
      | while IFS= read -r file; do
          copy="$dir/$(echo "${file#packages/pigeon/}" | tr '/' '_')"
          git -C "$checkout" show "$tag:$file" > "$copy"
          echo "$copy"
        done > "$dir/files"
    compile_all "$dir" "$tag" < "$dir/files"
  done
fi
for folder in ${folders[@]+"${folders[@]}"}; do
  dir="$work/$(basename "$folder")"
  mkdir -p "$dir"
  find "$folder" -name '*.swift' ! -name 'ProxyApiTests.gen.swift' | sort | while IFS= read -r file; do
    copy="$dir/$(echo "${file#"$folder"/}" | tr '/' '_')"
    cp "$file" "$copy"
    echo "$copy"
  done > "$dir/files"
  compile_all "$dir" "$folder" < "$dir/files"
done

echo "$passed of $checked compiled"
[ "$passed" -eq "$checked" ]

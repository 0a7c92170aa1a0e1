#!/usr/bin/env bash
# Compiles the Swift that Pigeon checks in for its own tests and example, for every pigeon-v*
# tag from 22.4.1 on, against the Flutter module, after `channelbridge pigeon adapt`.
#
#   Scripts/pigeon/check-generated.sh /path/to/flutter-packages-checkout
#
# Needs a clone of github.com/flutter/packages with its tags and a debug build of this package
# (`swift build`). Prints one line per tag: "ok", or the files that failed (their compiler output
# is kept in the work directory). @ProxyApi output (ProxyApiTests.gen.swift) is skipped: it needs
# the Objective-C runtime (objc_setAssociatedObject, NSMapTable). Pigeon's code is only read
# from the checkout, never copied into this repository.
set -euo pipefail
packages=${1:?usage: check-generated.sh FLUTTER_PACKAGES_CHECKOUT}
root=$(cd "$(dirname "$0")/../.." && pwd)
modules=$root/.build/debug/Modules
cli=$root/.build/debug/channelbridge
work=$(mktemp -d /tmp/pigeon-check-XXXXXX)
echo "work directory: $work"

tags=$(git -C "$packages" tag --list 'pigeon-v*' | sort -V | sed -n '/^pigeon-v22\.4\.1$/,$p')
for tag in $tags; do
  failed=""
  files=$(git -C "$packages" ls-tree -r --name-only "$tag" packages/pigeon/platform_tests packages/pigeon/example \
    | grep -E '\.(gen|g)\.swift$' | grep -v -i alternate | grep -v ProxyApiTests || true)
  for file in $files; do
    out="$work/$tag-$(basename "$file")"
    git -C "$packages" show "$tag:$file" > "$out"
    "$cli" pigeon adapt "$out" > /dev/null
    if ! swiftc -c -parse-as-library -swift-version 5 -I "$modules" "$out" -o "$work/out.o" > "$out.log" 2>&1; then
      failed="$failed $(basename "$file")"
    fi
  done
  echo "$tag: ${failed:-ok}"
done

#!/usr/bin/env python3
"""Regenerates the codec vector files in Protocol/vectors/ (standard-*.json and json-*.json).

    python3 Scripts/vectors/generate.py          # write the files, then validate them
    python3 Scripts/vectors/generate.py --check  # exit 1 if a committed file differs from the output

Python 3 standard library only. The encoders and the strict decoders here are an independent
implementation of Protocol/codec.md, written from the format description. Every vector is
produced by the encoder, decoded back, checked against any hand-written hex next to it, and
every malformed entry is checked to be rejected for its stated reason (or accepted with its
value). When ../shared/vectors/flutter-sample.json (vectors produced by Flutter's own encoders)
is present, every one of its entries must match this implementation as well.

Framing vectors (framing-*.json) in the same directory are written by a different tool and are
left alone. Output is deterministic: no randomness, no timestamps.
"""

import json
import pathlib
import re
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the repository
sys.setrecursionlimit(20000)  # the deep-nesting vectors recurse about 1,000 levels (x a few frames)

import json_vectors  # noqa: E402
import standard_vectors  # noqa: E402
from vectorfile import validate  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "Protocol" / "vectors"
SAMPLE = REPO.parent / "shared" / "vectors" / "flutter-sample.json"
README = OUT / "README.md"
COUNTS_BEGIN, COUNTS_END = "<!-- counts:begin -->", "<!-- counts:end -->"
SECTION_ABBREV = [("messages", "msg"), ("method_calls", "call"), ("success_envelopes", "ok"),
                  ("error_envelopes", "err"), ("error_envelopes_with_stacktrace", "err+st"),
                  ("malformed", "malformed")]


def cross_check_sample():
    if not SAMPLE.exists():
        print(f"note: {SAMPLE} not found; skipping the cross-check against Flutter's own encoders")
        return
    counts = validate(json.loads(SAMPLE.read_text(encoding="utf-8")), SAMPLE.name, require_canonical=False)
    print(f"cross-check: all {sum(counts.values())} entries of {SAMPLE} match this implementation")


def counts_table(files):
    rows = ["| file | " + " | ".join(a for _, a in SECTION_ABBREV) + " | total |",
            "|---|" + "---:|" * (len(SECTION_ABBREV) + 1)]
    totals = [0] * len(SECTION_ABBREV)
    for vf in files:
        cells = []
        for i, (s, _) in enumerate(SECTION_ABBREV):
            n = len(vf.sections[s])
            totals[i] += n
            cells.append(str(n) if n else "")
        rows.append(f"| `{vf.filename}` | " + " | ".join(cells) + f" | {vf.count()} |")
    for label, prefix in (("all standard-*", "standard-"), ("all json-*", "json-")):
        sub = [vf for vf in files if vf.filename.startswith(prefix)]
        rows.append(f"| {label} | " + " | ".join(
            str(sum(len(vf.sections[s]) for vf in sub)) for s, _ in SECTION_ABBREV) +
            f" | {sum(vf.count() for vf in sub)} |")
    return "\n".join(rows)


def updated_readme(files):
    if not README.exists():
        return None
    text = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(COUNTS_BEGIN) + ".*?" + re.escape(COUNTS_END), re.S)
    if not pattern.search(text):
        return None
    return pattern.sub(lambda _: COUNTS_BEGIN + "\n" + counts_table(files) + "\n" + COUNTS_END, text)


def main(argv):
    check = "--check" in argv
    cross_check_sample()
    files = standard_vectors.build() + json_vectors.build()
    all_names = [e["name"] for vf in files for s in vf.sections.values() for e in s]
    assert len(all_names) == len(set(all_names)), "vector names must be unique across files"

    outputs = {OUT / vf.filename: vf.text() for vf in files}
    readme = updated_readme(files)
    if readme is not None:
        outputs[README] = readme

    stale = [p for p, text in outputs.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if check:
        for p in stale:
            print(f"out of date: {p.relative_to(REPO)}")
        if stale:
            print("run: python3 Scripts/vectors/generate.py")
            return 1
    else:
        OUT.mkdir(parents=True, exist_ok=True)
        for p in stale:
            p.write_text(outputs[p], encoding="utf-8")

    # Validate what is on disk (or would be written) as a reader of the format would see it.
    for vf in files:
        path = OUT / vf.filename
        text = path.read_text(encoding="utf-8") if path.exists() and not check else outputs[path]
        counts = validate(json.loads(text), vf.filename)
        assert sum(counts.values()) == vf.count()
    for vf in files:
        print(f"{vf.filename}: {vf.count()} entries")
    std = sum(vf.count() for vf in files if vf.filename.startswith("standard-"))
    jsn = sum(vf.count() for vf in files if vf.filename.startswith("json-"))
    print(f"total: {std} standard, {jsn} json" + ("" if check else f"; {len(stale)} file(s) rewritten"))
    if readme is None:
        print(f"note: {README.relative_to(REPO)} has no {COUNTS_BEGIN} block; counts not updated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

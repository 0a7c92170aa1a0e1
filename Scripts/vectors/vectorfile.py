"""Building, checking, writing and validating vector files (format: Protocol/typed-value-notation.md)."""

import json
import re

import json_codec
import standard_codec
from model import to_tvn, from_tvn, NotationError

CODECS = {"standard": standard_codec, "json": json_codec}
SECTIONS = ["messages", "method_calls", "success_envelopes", "error_envelopes",
            "error_envelopes_with_stacktrace", "malformed"]
ENTRY_KEYS = {
    "messages": ["name", "value", "hex"],
    "method_calls": ["name", "method", "args", "hex"],
    "success_envelopes": ["name", "result", "hex"],
    "error_envelopes": ["name", "code", "message", "details", "hex"],
    "error_envelopes_with_stacktrace": ["name", "code", "message", "details", "stacktrace", "hex"],
}
MODES = ("message", "method_call", "envelope")
_HEX = re.compile(r"([0-9a-f]{2})*\Z")
_NAME = re.compile(r"[a-z0-9_]+\Z")


def hx(*parts):
    """Bytes from hex strings (spaces allowed) and bytes objects."""
    out = bytearray()
    for p in parts:
        out += bytes.fromhex(p.replace(" ", "")) if isinstance(p, str) else bytes(p)
    return bytes(out)


def compact(o):
    return json.dumps(o, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def rejects(fn, data):
    try:
        fn(data)
    except standard_codec.Reject as e:
        return e
    return None


def decoded_to_json(mode, d):
    """A decoded message / call / envelope as the JSON shape an `accept` entry's value uses."""
    if mode == "message":
        return to_tvn(d)
    out = {}
    for k, x in d.items():
        out[k] = to_tvn(x) if k in ("args", "result", "details") else x
    return out


def decoder(codec, mode):
    c = CODECS[codec]
    return {"message": c.decode_message, "method_call": c.decode_method_call,
            "envelope": c.decode_envelope}[mode]


class VectorFile:
    def __init__(self, filename, about, codec="standard"):
        self.filename = filename
        self.about = about
        self.codec = codec
        self.c = CODECS[codec]
        self.sections = {s: [] for s in SECTIONS}

    def count(self):
        return sum(len(v) for v in self.sections.values())

    def _add(self, section, entry):
        assert _NAME.match(entry["name"]), entry["name"]
        assert all(e["name"] != entry["name"] for s in self.sections.values() for e in s), entry["name"]
        self.sections[section].append(entry)

    def _same(self, got, want, name):
        assert got == want, f"{self.filename}:{name}: decoded {got!r}, expected {want!r}"

    # Each adder encodes with our writer, checks an optional hand-written expectation, and checks
    # that our strict reader decodes the bytes back to the same value.

    def msg(self, name, value, expect_hex=None):
        data = self.c.encode_message(value)
        assert expect_hex is None or data == hx(expect_hex), (name, data.hex())
        self._same(self.c.decode_message(data), value, name)
        self._add("messages", {"name": name, "value": value, "hex": data.hex()})
        return data

    def call(self, name, method, args, expect_hex=None):
        data = self.c.encode_method_call(method, args)
        assert expect_hex is None or data == hx(expect_hex), (name, data.hex())
        self._same(self.c.decode_method_call(data), {"method": method, "args": args}, name)
        self._add("method_calls", {"name": name, "method": method, "args": args, "hex": data.hex()})
        return data

    def success(self, name, result, expect_hex=None):
        data = self.c.encode_success(result)
        assert expect_hex is None or data == hx(expect_hex), (name, data.hex())
        self._same(self.c.decode_envelope(data), {"result": result}, name)
        self._add("success_envelopes", {"name": name, "result": result, "hex": data.hex()})
        return data

    def error(self, name, code, message, details, expect_hex=None):
        data = self.c.encode_error(code, message, details)
        assert expect_hex is None or data == hx(expect_hex), (name, data.hex())
        self._same(self.c.decode_envelope(data), {"code": code, "message": message, "details": details}, name)
        self._add("error_envelopes", {"name": name, "code": code, "message": message, "details": details,
                                      "hex": data.hex()})
        return data

    def error_st(self, name, code, message, details, stacktrace, expect_hex=None):
        data = self.c.encode_error(code, message, details, stacktrace)
        assert expect_hex is None or data == hx(expect_hex), (name, data.hex())
        self._same(self.c.decode_envelope(data),
                   {"code": code, "message": message, "details": details, "stacktrace": stacktrace}, name)
        self._add("error_envelopes_with_stacktrace",
                  {"name": name, "code": code, "message": message, "details": details,
                   "stacktrace": stacktrace, "hex": data.hex()})
        return data

    def reject(self, name, mode, data, rule):
        """`rule` is the reason our reader must give (or a tuple of acceptable ones, e.g. a short
        payload is `truncated` or, for a reader that checks counts first, `sizeTooLarge`); it
        documents the vector and is not written to the file."""
        data = hx(data) if isinstance(data, str) else bytes(data)
        err = rejects(decoder(self.codec, mode), data)
        assert err is not None, f"{self.filename}:{name}: accepted"
        allowed = (rule,) if isinstance(rule, str) else rule
        assert err.rule in allowed, f"{self.filename}:{name}: rejected as {err.rule}, expected {rule}: {err}"
        self._add("malformed", {"name": name, "mode": mode, "hex": data.hex(), "expect": "reject"})

    def accept(self, name, mode, data, value):
        """`value`: a model value (message) or the decoded dict (method_call / envelope)."""
        data = hx(data) if isinstance(data, str) else bytes(data)
        self._same(decoder(self.codec, mode)(data), value, name)
        self._add("malformed", {"name": name, "mode": mode, "hex": data.hex(), "expect": "accept",
                                "value": value})

    # ------------------------------------------------------------ output

    def _entry_text(self, section, e):
        parts = []
        for k, x in e.items():
            if section == "malformed" and k == "value":
                x = decoded_to_json(e["mode"], x)
            elif k in ("value", "args", "result", "details"):
                x = to_tvn(x)
            parts.append(json.dumps(k) + ": " + compact(x))
        return "{" + ", ".join(parts) + "}"

    def text(self):
        lines = ["{", ' "about": ' + compact(self.about) + ","]
        if self.codec != "standard":
            lines.append(' "codec": ' + compact(self.codec) + ",")
        used = [s for s in SECTIONS if self.sections[s]]
        for si, s in enumerate(used):
            lines.append(" " + json.dumps(s) + ": [")
            entries = self.sections[s]
            for i, e in enumerate(entries):
                lines.append("  " + self._entry_text(s, e) + ("," if i + 1 < len(entries) else ""))
            lines.append(" ]" + ("," if si + 1 < len(used) else ""))
        lines.append("}")
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- validation of written files


def _accept_value_from_json(mode, o):
    if mode == "message":
        return from_tvn(o)
    assert isinstance(o, dict), o
    if mode == "method_call":
        assert sorted(o) == ["args", "method"] and isinstance(o["method"], str), o
        return {"method": o["method"], "args": from_tvn(o["args"])}
    if "result" in o:
        assert list(o) == ["result"], o
        return {"result": from_tvn(o["result"])}
    assert set(o) in ({"code", "message", "details"}, {"code", "message", "details", "stacktrace"}), o
    assert isinstance(o["code"], str) and (o["message"] is None or isinstance(o["message"], str)), o
    out = {"code": o["code"], "message": o["message"], "details": from_tvn(o["details"])}
    if "stacktrace" in o:
        assert o["stacktrace"] is None or isinstance(o["stacktrace"], str), o
        out["stacktrace"] = o["stacktrace"]
    return out


def validate(doc, label, require_canonical=True):
    """Checks one parsed vector file against the format and against both of our codecs' rules.

    Returns {section: count}. Raises AssertionError naming the entry on any problem.
    """
    assert isinstance(doc, dict), label
    allowed = {"about", "codec", *SECTIONS}
    assert set(doc) <= allowed, f"{label}: unknown top-level keys {set(doc) - allowed}"
    codec = doc.get("codec", "standard")
    assert codec in CODECS, f"{label}: unknown codec {codec!r}"
    c = CODECS[codec]
    counts = {}
    names = set()
    for s in SECTIONS:
        if s not in doc:
            continue
        assert isinstance(doc[s], list), f"{label}: {s} is not an array"
        counts[s] = len(doc[s])
        for e in doc[s]:
            where = f"{label}:{s}:{e.get('name')}"
            assert isinstance(e.get("name"), str) and e["name"] not in names, f"{where}: bad or repeated name"
            names.add(e["name"])
            assert isinstance(e.get("hex"), str) and _HEX.match(e["hex"]), f"{where}: hex"
            data = bytes.fromhex(e["hex"])
            try:
                if s == "malformed":
                    keys = ["name", "mode", "hex", "expect"] + (["value"] if e.get("expect") == "accept" else [])
                    assert list(e) == keys, f"{where}: keys {list(e)}"
                    assert e["mode"] in MODES and e["expect"] in ("accept", "reject"), where
                    dec = decoder(codec, e["mode"])
                    if e["expect"] == "reject":
                        assert rejects(dec, data) is not None, f"{where}: our reader accepts it"
                    else:
                        want = _accept_value_from_json(e["mode"], e["value"])
                        assert dec(data) == want, f"{where}: decodes differently"
                        if require_canonical:
                            assert compact(decoded_to_json(e["mode"], want)) == compact(e["value"]), \
                                f"{where}: value not canonical TVN"
                    continue
                assert list(e) == ENTRY_KEYS[s], f"{where}: keys {list(e)}"
                tvn_keys = [k for k in ("value", "args", "result", "details") if k in e]
                vals = {k: from_tvn(e[k]) for k in tvn_keys}
                if require_canonical:
                    for k in tvn_keys:
                        assert compact(to_tvn(vals[k])) == compact(e[k]), f"{where}: {k} not canonical TVN"
                if s == "messages":
                    enc, want, got = c.encode_message(vals["value"]), vals["value"], c.decode_message(data)
                elif s == "method_calls":
                    assert isinstance(e["method"], str), where
                    enc = c.encode_method_call(e["method"], vals["args"])
                    want, got = {"method": e["method"], "args": vals["args"]}, c.decode_method_call(data)
                elif s == "success_envelopes":
                    enc, want, got = c.encode_success(vals["result"]), {"result": vals["result"]}, \
                        c.decode_envelope(data)
                else:
                    assert isinstance(e["code"], str), where
                    assert e["message"] is None or isinstance(e["message"], str), where
                    want = {"code": e["code"], "message": e["message"], "details": vals["details"]}
                    if s == "error_envelopes":
                        enc = c.encode_error(e["code"], e["message"], vals["details"])
                    else:
                        assert e["stacktrace"] is None or isinstance(e["stacktrace"], str), where
                        want["stacktrace"] = e["stacktrace"]
                        enc = c.encode_error(e["code"], e["message"], vals["details"], e["stacktrace"])
                    got = c.decode_envelope(data)
                assert enc == data, f"{where}: our encoder gives {enc.hex()}"
                assert got == want, f"{where}: our decoder gives {got!r}"
            except NotationError as err:
                raise AssertionError(f"{where}: {err}")
    return counts

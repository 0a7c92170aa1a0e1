"""An independent Python implementation of the JSON message and method codecs of Protocol/codec.md.

The encoder follows our canonical JSON rules (compact, keys in map order, minimal escaping,
non-ASCII as raw UTF-8). The decoder is a small hand-written parser so that every rule (number
classification, duplicate keys kept, nesting limit, strict UTF-8, no BOM) is explicit here.
"""

import math
import re

from model import (I32, I64, F64, U8L, I32L, I64L, F32L, F64L, Map, Custom, INT32_MIN, INT32_MAX,
                   INT64_MIN, INT64_MAX, float_of_bits32, float_of_bits64, bits64)
from standard_codec import Reject, DEFAULT_MAX_DEPTH


class Unencodable(Exception):
    pass


# ---------------------------------------------------------------- encoder

_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def quote(s):
    out = ['"']
    for ch in s:
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)  # '/', DEL and all non-ASCII stay as they are
    out.append('"')
    return "".join(out)


def number(x):
    if math.isnan(x) or math.isinf(x):
        raise Unencodable("NaN and infinities have no JSON form")
    return repr(x)  # shortest round-trip text, '1.0' for integral values, '1e+16' beyond


def jenc(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (I32, I64)):
        return str(v.v)
    if isinstance(v, F64):
        return number(float_of_bits64(v.bits))
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, U8L):
        return "[" + ",".join(str(b) for b in v.data) + "]"
    if isinstance(v, (I32L, I64L)):
        return "[" + ",".join(str(x) for x in v.items) + "]"
    if isinstance(v, F32L):
        return "[" + ",".join(number(float_of_bits32(b)) for b in v.bits) + "]"
    if isinstance(v, F64L):
        return "[" + ",".join(number(float_of_bits64(b)) for b in v.bits) + "]"
    if isinstance(v, list):
        return "[" + ",".join(jenc(x) for x in v) + "]"
    if isinstance(v, Map):
        parts = []
        for k, x in v.pairs:
            if not isinstance(k, str):
                raise Unencodable("JSON object keys must be strings")
            parts.append(quote(k) + ":" + jenc(x))
        return "{" + ",".join(parts) + "}"
    if isinstance(v, Custom):
        raise Unencodable("custom values have no JSON form")
    raise TypeError(repr(v))


def encode_message(v):
    return jenc(v).encode("utf-8")


def encode_method_call(method, args):
    return ('{"method":' + quote(method) + ',"args":' + jenc(args) + "}").encode("utf-8")


def encode_success(result):
    return ("[" + jenc(result) + "]").encode("utf-8")


NO_STACKTRACE = object()


def encode_error(code, message, details, stacktrace=NO_STACKTRACE):
    parts = [quote(code), "null" if message is None else quote(message), jenc(details)]
    if stacktrace is not NO_STACKTRACE:
        parts.append("null" if stacktrace is None else quote(stacktrace))
    return ("[" + ",".join(parts) + "]").encode("utf-8")


# ---------------------------------------------------------------- decoder

_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_WS = " \t\n\r"
_ESC = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class Parser:
    def __init__(self, text, max_depth=DEFAULT_MAX_DEPTH):
        self.s = text
        self.i = 0
        self.max_depth = max_depth

    def fail(self, why, rule="invalidJSON"):
        raise Reject(rule, self.i, why)

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in _WS:
            self.i += 1

    def document(self):
        self.ws()
        v = self.value(0)
        self.ws()
        if self.i != len(self.s):
            self.fail("trailing characters after the JSON value", "trailingBytes")
        return v

    def value(self, depth):
        if self.i >= len(self.s):
            self.fail("unexpected end of text", "truncated")
        c = self.s[self.i]
        if c in "{[":
            if depth + 1 > self.max_depth:
                self.fail(f"more than {self.max_depth} nested containers", "nestingTooDeep")
            return self.obj(depth + 1) if c == "{" else self.arr(depth + 1)
        if c == '"':
            return self.string()
        for lit, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(lit, self.i):
                self.i += len(lit)
                return val
        m = _NUMBER.match(self.s, self.i)
        if m and m.end() > self.i:
            self.i = m.end()
            text = m.group(0)
            if m.group(2) is None and m.group(3) is None:
                n = int(text)
                if INT32_MIN <= n <= INT32_MAX:
                    return I32(n)
                if INT64_MIN <= n <= INT64_MAX:
                    return I64(n)
                return F64(bits64(float(text)))
            x = float(text)
            if math.isinf(x):
                self.fail("number outside the float64 range")  # JSON cannot write it back either
            return F64(bits64(x))
        self.fail(f"unexpected character {c!r}")

    def expect(self, ch):
        self.ws()
        if self.i >= len(self.s) or self.s[self.i] != ch:
            self.fail(f"expected {ch!r}")
        self.i += 1

    def arr(self, depth):
        self.i += 1
        items = []
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "]":
            self.i += 1
            return items
        while True:
            self.ws()
            items.append(self.value(depth))
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                continue
            self.expect("]")
            return items

    def obj(self, depth):
        self.i += 1
        pairs = []
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "}":
            self.i += 1
            return Map(())
        while True:
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != '"':
                self.fail("object keys must be strings")
            k = self.string()
            self.expect(":")
            self.ws()
            pairs.append((k, self.value(depth)))  # document order, duplicates kept
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                continue
            self.expect("}")
            return Map(tuple(pairs))

    def hex4(self):
        h = self.s[self.i:self.i + 4]
        if len(h) != 4 or not all(c in "0123456789abcdefABCDEF" for c in h):
            self.fail("bad \\u escape")
        self.i += 4
        return int(h, 16)

    def string(self):
        self.i += 1
        out = []
        while True:
            if self.i >= len(self.s):
                self.fail("unterminated string", "truncated")
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if ord(c) < 0x20:
                self.fail("control character in string")
            if c != "\\":
                out.append(c)
                self.i += 1
                continue
            self.i += 1
            e = self.s[self.i] if self.i < len(self.s) else ""
            if e in _ESC:
                out.append(_ESC[e])
                self.i += 1
            elif e == "u":
                self.i += 1
                u = self.hex4()
                if 0xD800 <= u <= 0xDBFF:
                    if self.s[self.i:self.i + 2] != "\\u":
                        self.fail("lone high surrogate escape")
                    self.i += 2
                    lo = self.hex4()
                    if not 0xDC00 <= lo <= 0xDFFF:
                        self.fail("high surrogate escape not followed by a low one")
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                elif 0xDC00 <= u <= 0xDFFF:
                    self.fail("lone low surrogate escape")
                out.append(chr(u))
            else:
                self.fail("bad escape")


def parse(data):
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise Reject("invalidUTF8", e.start, str(e.reason))
    return Parser(text).document()


def decode_message(data):
    if len(data) == 0:
        return None  # same rule as the Standard codec: an empty message is null
    return parse(data)


def decode_method_call(data):
    v = parse(data)
    if not isinstance(v, Map):
        raise Reject("invalidMethodCall", 0, "method call is not a JSON object")
    keys = [k for k, _ in v.pairs]
    if keys.count("method") != 1 or keys.count("args") > 1:
        raise Reject("invalidMethodCall", 0, "needs exactly one 'method' and at most one 'args'")
    d = dict(v.pairs)
    if not isinstance(d["method"], str):
        raise Reject("invalidMethodCall", 0, "'method' is not a string")
    return {"method": d["method"], "args": d.get("args")}


def decode_envelope(data):
    v = parse(data)
    if not isinstance(v, list) or len(v) not in (1, 3, 4):
        raise Reject("invalidEnvelope", 0, "expected an array of 1, 3 or 4 elements")
    if len(v) == 1:
        return {"result": v[0]}
    code, message, details = v[0], v[1], v[2]
    if not isinstance(code, str):
        raise Reject("invalidEnvelope", 0, "error code is not a string")
    if message is not None and not isinstance(message, str):
        raise Reject("invalidEnvelope", 0, "error message is neither a string nor null")
    out = {"code": code, "message": message, "details": details}
    if len(v) == 4:
        if v[3] is not None and not isinstance(v[3], str):
            raise Reject("invalidEnvelope", 0, "stacktrace is neither a string nor null")
        out["stacktrace"] = v[3]
    return out

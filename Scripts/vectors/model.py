"""The Standard value model and typed value notation (TVN), as plain Python.

Floating-point values are kept as bit patterns so that NaN payloads, NaN signs and -0.0 survive
every step; equality is structural (dataclass equality), which compares those bit patterns.
Python's own None / True / False / str / list stand for null, bool, String and List.
"""

import math
import re
import struct
from dataclasses import dataclass

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

CANONICAL_NAN64 = 0x7FF8000000000000
CANONICAL_NAN32 = 0x7FC00000


@dataclass(frozen=True)
class I32:
    v: int

    def __post_init__(self):
        assert type(self.v) is int and INT32_MIN <= self.v <= INT32_MAX, self.v


@dataclass(frozen=True)
class I64:
    v: int

    def __post_init__(self):
        assert type(self.v) is int and INT64_MIN <= self.v <= INT64_MAX, self.v


@dataclass(frozen=True)
class F64:
    bits: int  # the IEEE-754 binary64 bit pattern


@dataclass(frozen=True)
class U8L:
    data: bytes


@dataclass(frozen=True)
class I32L:
    items: tuple


@dataclass(frozen=True)
class I64L:
    items: tuple


@dataclass(frozen=True)
class F32L:
    bits: tuple  # binary32 bit patterns


@dataclass(frozen=True)
class F64L:
    bits: tuple  # binary64 bit patterns


@dataclass(frozen=True)
class Map:
    pairs: tuple  # ((key, value), ...) in wire order; duplicates allowed


@dataclass(frozen=True)
class Custom:
    tag: int
    payload: bytes


# ---------------------------------------------------------------- construction helpers


def bits64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def float_of_bits64(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def bits32(x):
    """Bits of x narrowed to binary32; x must be exactly representable."""
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    if not math.isnan(x):
        assert float_of_bits32(b) == x, f"{x!r} is not exact as a float32"
    return b


def float_of_bits32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f64(x):
    return F64(bits64(x))


def i32(n):
    return I32(n)


def i64(n):
    return I64(n)


def u8l(data):
    return U8L(bytes(data))


def i32l(*xs):
    return I32L(tuple(xs))


def i64l(*xs):
    return I64L(tuple(xs))


def _bits_or(x, conv):
    # ("bits", n) passes a raw bit pattern (NaN payloads); anything else is a number.
    if isinstance(x, tuple) and x[0] == "bits":
        return x[1]
    return conv(x)


def f32l(*xs):
    return F32L(tuple(_bits_or(x, bits32) for x in xs))


def f64l(*xs):
    return F64L(tuple(_bits_or(x, bits64) for x in xs))


def mp(*pairs):
    return Map(tuple((k, v) for k, v in pairs))


def smap(**kw):
    """A map with string keys, in keyword order."""
    return Map(tuple(kw.items()))


# ---------------------------------------------------------------- TVN output (canonical)


def _float_tvn(x, bits, canonical_nan, width):
    if math.isnan(x):
        return "NaN" if bits == canonical_nan else "NaN:%0*x" % (width, bits)
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0 and math.copysign(1.0, x) < 0:
        return "-0.0"
    # Python's repr is the shortest text that round-trips, in the same layout as Swift's
    # Double.description (1.0, 1e+16, 5e-324); json.dumps writes floats with repr.
    return x


def f64_tvn(bits):
    return _float_tvn(float_of_bits64(bits), bits, CANONICAL_NAN64, 16)


def f32_tvn(bits):
    return _float_tvn(float_of_bits32(bits), bits, CANONICAL_NAN32, 8)


def to_tvn(v):
    """Model value -> JSON-ready Python object in canonical TVN."""
    if v is None or v is True or v is False or isinstance(v, str):
        return v
    if isinstance(v, I32):
        return {"int32": v.v}
    if isinstance(v, I64):
        return {"int64": str(v.v)}
    if isinstance(v, F64):
        return {"float64": f64_tvn(v.bits)}
    if isinstance(v, U8L):
        return {"uint8list": v.data.hex()}
    if isinstance(v, I32L):
        return {"int32list": list(v.items)}
    if isinstance(v, I64L):
        return {"int64list": [str(x) for x in v.items]}
    if isinstance(v, F32L):
        return {"float32list": [f32_tvn(b) for b in v.bits]}
    if isinstance(v, F64L):
        return {"float64list": [f64_tvn(b) for b in v.bits]}
    if isinstance(v, list):
        return [to_tvn(x) for x in v]
    if isinstance(v, Map):
        return {"map": [[to_tvn(k), to_tvn(x)] for k, x in v.pairs]}
    if isinstance(v, Custom):
        return {"custom": v.tag, "hex": v.payload.hex()}
    raise TypeError(f"not a model value: {v!r}")


# ---------------------------------------------------------------- TVN input (strict: vector files)


class NotationError(Exception):
    pass


_SPECIAL64 = {"NaN": CANONICAL_NAN64, "Infinity": bits64(math.inf), "-Infinity": bits64(-math.inf),
              "-0.0": bits64(-0.0)}
_SPECIAL32 = {"NaN": CANONICAL_NAN32, "Infinity": 0x7F800000, "-Infinity": 0xFF800000, "-0.0": 0x80000000}
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_HEX = re.compile(r"([0-9a-f]{2})*\Z")


def _is_number(x):
    return type(x) in (int, float)


def _parse_f64(x):
    if isinstance(x, str):
        if x in _SPECIAL64:
            return _SPECIAL64[x]
        m = re.fullmatch(r"NaN:([0-9a-f]{16})", x)
        if m:
            b = int(m.group(1), 16)
            if not math.isnan(float_of_bits64(b)):
                raise NotationError(f"{x} is not a NaN bit pattern")
            return b
        raise NotationError(f"bad float64 text {x!r}")
    if not _is_number(x):
        raise NotationError(f"bad float64 {x!r}")
    return bits64(float(x))


def _parse_f32(x):
    if isinstance(x, str):
        if x in _SPECIAL32:
            return _SPECIAL32[x]
        m = re.fullmatch(r"NaN:([0-9a-f]{8})", x)
        if m:
            b = int(m.group(1), 16)
            if not math.isnan(float_of_bits32(b)):
                raise NotationError(f"{x} is not a NaN bit pattern")
            return b
        raise NotationError(f"bad float32 text {x!r}")
    if not _is_number(x):
        raise NotationError(f"bad float32 {x!r}")
    d = float(x)
    b = struct.unpack("<I", struct.pack("<f", d))[0]
    if float_of_bits32(b) != d:
        raise NotationError(f"{x!r} is not exactly a float32")
    return b


def _parse_int(x, lo, hi, allow_string):
    if allow_string and isinstance(x, str):
        if not _DECIMAL.match(x):
            raise NotationError(f"bad decimal {x!r}")
        x = int(x)
    if type(x) is not int or not lo <= x <= hi:
        raise NotationError(f"integer out of range or wrong type: {x!r}")
    return x


def from_tvn(o):
    """JSON-parsed object -> model value. Strict TVN (no lenient forms)."""
    if o is None or o is True or o is False or isinstance(o, str):
        return o
    if isinstance(o, list):
        return [from_tvn(x) for x in o]
    if not isinstance(o, dict):
        raise NotationError(f"a bare number is not strict TVN: {o!r}")
    keys = list(o.keys())
    if sorted(keys) == ["custom", "hex"]:
        tag = o["custom"]
        if type(tag) is not int or not 128 <= tag <= 255 or not isinstance(o["hex"], str) \
                or not _HEX.match(o["hex"]):
            raise NotationError(f"bad custom value {o!r}")
        return Custom(tag, bytes.fromhex(o["hex"]))
    if len(keys) != 1:
        raise NotationError(f"object is not one TVN tag: {keys}")
    k, x = keys[0], o[keys[0]]
    if k == "int32":
        return I32(_parse_int(x, INT32_MIN, INT32_MAX, False))
    if k == "int64":
        return I64(_parse_int(x, INT64_MIN, INT64_MAX, True))
    if k == "float64":
        return F64(_parse_f64(x))
    if k == "uint8list":
        if not isinstance(x, str) or not _HEX.match(x):
            raise NotationError("uint8list needs lowercase hex")
        return U8L(bytes.fromhex(x))
    if k in ("int32list", "int64list", "float32list", "float64list") and not isinstance(x, list):
        raise NotationError(f"{k} needs an array")
    if k == "int32list":
        return I32L(tuple(_parse_int(e, INT32_MIN, INT32_MAX, False) for e in x))
    if k == "int64list":
        return I64L(tuple(_parse_int(e, INT64_MIN, INT64_MAX, True) for e in x))
    if k == "float32list":
        return F32L(tuple(_parse_f32(e) for e in x))
    if k == "float64list":
        return F64L(tuple(_parse_f64(e) for e in x))
    if k == "map":
        if not isinstance(x, list) or not all(isinstance(p, list) and len(p) == 2 for p in x):
            raise NotationError("map needs [[key, value], ...]")
        return Map(tuple((from_tvn(p[0]), from_tvn(p[1])) for p in x))
    raise NotationError(f"unknown TVN tag {k!r}")


def depth(v):
    """Containers (lists and maps) open at the deepest point; a scalar is 0."""
    if isinstance(v, list):
        return 1 + max((depth(x) for x in v), default=0)
    if isinstance(v, Map):
        return 1 + max((max(depth(k), depth(x)) for k, x in v.pairs), default=0)
    return 0

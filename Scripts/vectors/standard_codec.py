"""An independent Python implementation of the Standard message and method codecs.

Written from the format description in Protocol/codec.md (not from Flutter's code). The writer
produces the canonical bytes; the reader applies every strictness rule of codec.md, so the
generator can check that each malformed vector is accepted or rejected for the stated reason.
All multi-byte numbers are little-endian.
"""

import struct

from model import I32, I64, F64, U8L, I32L, I64L, F32L, F64L, Map, Custom

DEFAULT_MAX_DEPTH = 1000


class Reject(Exception):
    """The bytes are not a valid encoding. `offset` is where the problem was found."""

    def __init__(self, rule, offset, detail=""):
        super().__init__(f"{rule} at byte {offset}" + (f": {detail}" if detail else ""))
        self.rule = rule
        self.offset = offset


# ---------------------------------------------------------------- writer


class Writer:
    def __init__(self):
        self.out = bytearray()

    def size(self, n):
        if n < 254:
            self.out.append(n)
        elif n <= 0xFFFF:
            self.out.append(254)
            self.out += struct.pack("<H", n)
        else:
            assert n <= 0xFFFFFFFF
            self.out.append(255)
            self.out += struct.pack("<I", n)

    def align(self, n):
        # Offsets count from the first byte of the whole message, not of the enclosing container.
        while len(self.out) % n:
            self.out.append(0)

    def typed(self, tag, items, fmt, width):
        self.out.append(tag)
        self.size(len(items))
        self.align(width)  # even for an empty list: the padded form is the one every reader accepts
        for x in items:
            self.out += struct.pack(fmt, x)

    def value(self, v):
        o = self.out
        if v is None:
            o.append(0)
        elif v is True:
            o.append(1)
        elif v is False:
            o.append(2)
        elif isinstance(v, I32):
            o.append(3)
            o += struct.pack("<i", v.v)
        elif isinstance(v, I64):
            o.append(4)
            o += struct.pack("<q", v.v)
        elif isinstance(v, F64):
            o.append(6)
            self.align(8)
            o += struct.pack("<Q", v.bits)
        elif isinstance(v, str):
            data = v.encode("utf-8")  # strict: a lone surrogate cannot be written
            o.append(7)
            self.size(len(data))
            o += data
        elif isinstance(v, U8L):
            o.append(8)
            self.size(len(v.data))
            o += v.data
        elif isinstance(v, I32L):
            self.typed(9, v.items, "<i", 4)
        elif isinstance(v, I64L):
            self.typed(10, v.items, "<q", 8)
        elif isinstance(v, F64L):
            self.typed(11, v.bits, "<Q", 8)
        elif isinstance(v, list):
            o.append(12)
            self.size(len(v))
            for x in v:
                self.value(x)
        elif isinstance(v, Map):
            o.append(13)
            self.size(len(v.pairs))
            for k, x in v.pairs:
                self.value(k)
                self.value(x)
        elif isinstance(v, F32L):
            self.typed(14, v.bits, "<I", 4)
        elif isinstance(v, Custom):
            assert 128 <= v.tag <= 255
            o.append(v.tag)
            o += v.payload
        else:
            raise TypeError(f"cannot encode {v!r}")


def encode_message(v):
    w = Writer()
    w.value(v)  # null is written as 00, never as zero bytes
    return bytes(w.out)


def encode_method_call(method, args):
    assert isinstance(method, str)
    w = Writer()
    w.value(method)
    w.value(args)
    return bytes(w.out)


def encode_success(result):
    w = Writer()
    w.out.append(0)
    w.value(result)
    return bytes(w.out)


NO_STACKTRACE = object()


def encode_error(code, message, details, stacktrace=NO_STACKTRACE):
    assert isinstance(code, str) and (message is None or isinstance(message, str))
    w = Writer()
    w.out.append(1)
    w.value(code)
    w.value(message)
    w.value(details)
    if stacktrace is not NO_STACKTRACE:
        assert stacktrace is None or isinstance(stacktrace, str)
        w.value(stacktrace)
    return bytes(w.out)


# ---------------------------------------------------------------- reader (strict)


class Reader:
    def __init__(self, data, max_depth=DEFAULT_MAX_DEPTH):
        self.data = bytes(data)
        self.pos = 0
        self.max_depth = max_depth

    @property
    def left(self):
        return len(self.data) - self.pos

    def need(self, n, what):
        if self.left < n:
            raise Reject("truncated", self.pos, f"{what} needs {n} bytes, {self.left} left")

    def take(self, n, what):
        self.need(n, what)
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def byte(self, what):
        return self.take(1, what)[0]

    def size(self):
        first = self.byte("size")
        if first < 254:
            return first
        if first == 254:
            return struct.unpack("<H", self.take(2, "uint16 size"))[0]
        return struct.unpack("<I", self.take(4, "uint32 size"))[0]

    def check_count(self, start, count, min_bytes_each, what):
        # Before any allocation: a count the remaining bytes cannot hold is rejected at once.
        if count * min_bytes_each > self.left:
            raise Reject("sizeTooLarge", start, f"{what} claims {count} elements, {self.left} bytes left")

    def align(self, n):
        pad = (-self.pos) % n
        self.take(pad, "padding")  # the padding must exist; its contents are ignored

    def string(self, start):
        n = self.size()
        self.check_count(start, n, 1, "string")
        raw = self.take(n, "string")
        try:
            return raw.decode("utf-8")  # strict: overlong forms, surrogates, stray bytes rejected
        except UnicodeDecodeError as e:
            raise Reject("invalidUTF8", self.pos - n + e.start, str(e.reason))

    def typed(self, start, width, fmt, what):
        n = self.size()
        self.check_count(start, n, width, what)
        self.align(width)
        raw = self.take(n * width, what)
        return tuple(x[0] for x in struct.iter_unpack(fmt, raw))

    def value(self, depth=0):
        start = self.pos
        tag = self.byte("type byte")
        if tag == 0:
            return None
        if tag == 1:
            return True
        if tag == 2:
            return False
        if tag == 3:
            return I32(struct.unpack("<i", self.take(4, "int32"))[0])
        if tag == 4:
            return I64(struct.unpack("<q", self.take(8, "int64"))[0])
        if tag == 5:
            return self.string(start)  # legacy large int: read as its text, never written
        if tag == 6:
            self.align(8)
            return F64(struct.unpack("<Q", self.take(8, "float64"))[0])
        if tag == 7:
            return self.string(start)
        if tag == 8:
            n = self.size()
            self.check_count(start, n, 1, "Uint8List")
            return U8L(self.take(n, "Uint8List"))
        if tag == 9:
            return I32L(self.typed(start, 4, "<i", "Int32List"))
        if tag == 10:
            return I64L(self.typed(start, 8, "<q", "Int64List"))
        if tag == 11:
            return F64L(self.typed(start, 8, "<Q", "Float64List"))
        if tag == 14:
            return F32L(self.typed(start, 4, "<I", "Float32List"))
        if tag in (12, 13):
            if depth + 1 > self.max_depth:
                raise Reject("nestingTooDeep", start, f"more than {self.max_depth} nested containers")
            n = self.size()
            if tag == 12:
                self.check_count(start, n, 1, "List")
                return [self.value(depth + 1) for _ in range(n)]
            self.check_count(start, n, 2, "Map")
            pairs = []
            for _ in range(n):
                k = self.value(depth + 1)
                pairs.append((k, self.value(depth + 1)))
            return Map(tuple(pairs))  # duplicate keys are kept, in wire order
        raise Reject("unknownType", start, f"type byte {tag}")

    def end(self):
        if self.left:
            raise Reject("trailingBytes", self.pos, f"{self.left} bytes after the value")


def decode_message(data):
    if len(data) == 0:
        return None  # an empty message is null
    r = Reader(data)
    v = r.value()
    r.end()
    return v


def decode_method_call(data):
    r = Reader(data)
    method = r.value()
    if not isinstance(method, str):
        raise Reject("invalidMethodCall", 0, "method name is not a string")
    args = r.value()
    r.end()
    return {"method": method, "args": args}


def decode_envelope(data):
    """Returns {"result": v} or {"code", "message", "details"[, "stacktrace"]}."""
    r = Reader(data)
    flag = r.byte("envelope flag")
    if flag == 0:
        result = r.value()
        r.end()
        return {"result": result}
    if flag != 1:
        raise Reject("invalidEnvelope", 0, f"flag {flag}")
    at = r.pos
    code = r.value()
    if not isinstance(code, str):
        raise Reject("invalidEnvelope", at, "error code is not a string")
    at = r.pos
    message = r.value()
    if message is not None and not isinstance(message, str):
        raise Reject("invalidEnvelope", at, "error message is neither a string nor null")
    details = r.value()
    out = {"code": code, "message": message, "details": details}
    if r.left:
        at = r.pos
        st = r.value()
        if st is not None and not isinstance(st, str):
            raise Reject("invalidEnvelope", at, "stacktrace is neither a string nor null")
        out["stacktrace"] = st
    r.end()
    return out

"""The content of Protocol/vectors/standard-*.json."""

import math
import sys

from model import (I32, I64, F64, Map, f64, i32l, i64l, f32l, f64l, mp, smap, u8l,
                   float_of_bits64, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX)
from vectorfile import VectorFile, hx

ONE_5 = "000000000000f83f"  # 1.5 as little-endian binary64
ONE_0 = "000000000000f03f"
# A payload shorter than its count says: a reader that checks counts before reading reports
# sizeTooLarge, one that reads first reports truncated. Either is a rejection.
SHORT = ("truncated", "sizeTooLarge")


def scalars():
    f = VectorFile("standard-scalars.json",
                   "Standard codec scalars: null (0), true (1), false (2), int32 (3), int64 (4) including "
                   "small values written with the int64 tag, and float64 (6): zeros, subnormals, extremes, "
                   "infinities, the canonical NaN. A top-level float64 always has 7 padding bytes, because "
                   "its tag is at offset 0 and the 8 value bytes start at the next multiple of 8.")
    f.msg("null", None, "00")
    f.msg("true", True, "01")
    f.msg("false", False, "02")
    for name, n in [("0", 0), ("1", 1), ("minus_1", -1), ("127", 127), ("128", 128), ("255", 255),
                    ("256", 256), ("32767", 32767), ("minus_32768", -32768), ("65536", 65536),
                    ("0x12345678", 0x12345678), ("max", INT32_MAX), ("min", INT32_MIN)]:
        f.msg(f"int32_{name}", I32(n))
    for name, n in [("0", 0), ("1", 1), ("minus_1", -1), ("int32_max_as_int64", INT32_MAX),
                    ("int32_min_as_int64", INT32_MIN), ("int32_max_plus_1", INT32_MAX + 1),
                    ("int32_min_minus_1", INT32_MIN - 1), ("2_pow_32", 2**32),
                    ("2_pow_53_plus_1", 2**53 + 1), ("0x0102030405060708", 0x0102030405060708),
                    ("max", INT64_MAX), ("min", INT64_MIN)]:
        f.msg(f"int64_{name}", I64(n))
    f.msg("float64_zero", f64(0.0), "06 00000000000000 0000000000000000")
    f.msg("float64_negative_zero", f64(-0.0), "06 00000000000000 0000000000000080")
    f.msg("float64_one", f64(1.0), "06 00000000000000" + ONE_0)
    for name, x in [("minus_one", -1.0), ("1_5", 1.5), ("minus_2_5", -2.5), ("0_1", 0.1),
                    ("pi", math.pi), ("e", math.e), ("100", 100.0), ("2_pow_53", 2.0**53),
                    ("1e16", 1e16), ("1e_minus_7", 1e-7), ("max", sys.float_info.max),
                    ("lowest", -sys.float_info.max), ("min_normal", sys.float_info.min),
                    ("max_subnormal", float_of_bits64(0x000FFFFFFFFFFFFF)), ("min_subnormal", 5e-324),
                    ("negative_min_subnormal", -5e-324)]:
        f.msg(f"float64_{name}", f64(x))
    f.msg("float64_infinity", f64(math.inf), "06 00000000000000 000000000000f07f")
    f.msg("float64_negative_infinity", f64(-math.inf), "06 00000000000000 000000000000f0ff")
    f.msg("float64_nan_canonical", f64(math.nan), "06 00000000000000 000000000000f87f")
    return f


def strings():
    f = VectorFile("standard-strings.json",
                   "Standard codec strings (tag 7): the size is the UTF-8 byte count, written as 1 byte "
                   "below 254, FE + uint16 for 254...65535, FF + uint32 above (the 65535/65536 boundary "
                   "is in standard-size-boundaries.json). UTF-8 length classes and their boundaries, "
                   "embedded U+0000, and strings that must not be normalized.")
    f.msg("string_empty", "", "0700")
    f.msg("string_a", "a", "070161")
    f.msg("string_hello_world", "hello world")
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

    def ascii_text(n):
        return (alphabet * (n // len(alphabet) + 1))[:n]

    f.msg("string_ascii_253_bytes_one_byte_size", ascii_text(253))
    f.msg("string_ascii_254_bytes_fe_size", ascii_text(254))
    f.msg("string_ascii_255_bytes_fe_size", ascii_text(255))
    f.msg("string_ascii_256_bytes_fe_size", ascii_text(256))
    f.msg("string_e_acute_x126_252_bytes", "é" * 126)
    f.msg("string_e_acute_x126_plus_a_253_bytes", "é" * 126 + "a")
    f.msg("string_e_acute_x127_254_bytes_fe_size", "é" * 127)
    for name, ch in [("u0080", "\u0080"), ("u07ff", "\u07ff"), ("u0800", "\u0800"), ("ud7ff", "\ud7ff"),
                     ("ue000", "\ue000"), ("ufffd", "\ufffd"), ("uffff", "\uffff"),
                     ("u10000", "\U00010000"), ("u10ffff", "\U0010ffff")]:
        f.msg(f"string_{name}", ch)
    f.msg("string_euro", "€", "0703e282ac")
    f.msg("string_non_bmp_emoji", "h😂w", "070668f09f988277")
    f.msg("string_embedded_nul", "a\u0000b", "0703610062")
    f.msg("string_only_nul", "\u0000", "070100")
    f.msg("string_nul_at_end", "abc\u0000", "070461626300")
    f.msg("string_precomposed_e_acute", "\u00e9", "0702c3a9")
    f.msg("string_e_plus_combining_acute_not_normalized", "e\u0301", "070365cc81")
    f.msg("string_leading_bom_kept", "\ufeffa", "0704efbbbf61")
    f.msg("string_controls_and_del", "\t\n\r\u001f\u007f", "0705090a0d1f7f")
    f.msg("string_quote_backslash_slash", "\"\\/", "0703225c2f")
    f.msg("string_japanese", "日本語テキスト")
    f.msg("string_hebrew", "שלום")
    f.msg("string_mixed_lengths", "a\u00e9\u20ac\U0001F600")
    return f


def typed_lists():
    f = VectorFile("standard-typed-lists.json",
                   "Standard codec typed lists at the top level: Uint8List (8, never aligned), Int32List "
                   "(9) and Float32List (14) aligned to 4, Int64List (10) and Float64List (11) aligned to "
                   "8. Padding sits after the size prefix, so it depends on the prefix length. Empty "
                   "typed lists are padded too. Element bit patterns are exact (-0.0, infinities, NaN, "
                   "subnormals; 0.1 as a Float32 prints as 0.10000000149011612).")
    f.msg("uint8list_empty", u8l(b""), "0800")
    f.msg("uint8list_one_zero", u8l(b"\x00"), "080100")
    f.msg("uint8list_one_ff", u8l(b"\xff"), "0801ff")
    f.msg("uint8list_four", u8l(bytes.fromhex("ba5eba11")), "0804ba5eba11")
    f.msg("uint8list_253_one_byte_size", u8l(bytes(i % 256 for i in range(253))))
    f.msg("uint8list_254_fe_size", u8l(bytes(i % 256 for i in range(254))))
    f.msg("uint8list_255_fe_size", u8l(bytes(i % 256 for i in range(255))))
    f.msg("uint8list_all_256_byte_values", u8l(bytes(range(256))))

    f.msg("int32list_empty_padded", i32l(), "0900 0000")
    f.msg("int32list_one", i32l(1), "0901 0000 01000000")
    f.msg("int32list_extremes", i32l(INT32_MIN, INT32_MAX, 0, -1))
    f.msg("int32list_253_one_byte_size", i32l(*range(-126, 127)))
    f.msg("int32list_254_fe_size_no_padding", i32l(*range(-127, 127)))

    f.msg("int64list_empty_padded", i64l(), "0a00 000000000000")
    f.msg("int64list_one", i64l(1), "0a01 000000000000 0100000000000000")
    f.msg("int64list_extremes", i64l(INT64_MIN, INT64_MAX, 0, -1))
    f.msg("int64list_254_fe_size", i64l(*range(254)))

    f.msg("float32list_empty_padded", f32l(), "0e00 0000")
    f.msg("float32list_one", f32l(1.5), "0e01 0000 0000c03f")
    f.msg("float32list_0_1_widened", f32l(0.10000000149011612))
    f.msg("float32list_specials", f32l(0.0, -0.0, math.inf, -math.inf, math.nan))
    f.msg("float32list_extremes", f32l(1.401298464324817e-45, 1.1754943508222875e-38, 3.4028234663852886e+38,
                                       -3.4028234663852886e+38))
    f.msg("float32list_254_fe_size_no_padding", f32l(*[i / 4 for i in range(254)]))

    f.msg("float64list_empty_padded", f64l(), "0b00 000000000000")
    f.msg("float64list_one", f64l(1.5), "0b01 000000000000" + ONE_5)
    f.msg("float64list_specials", f64l(0.0, -0.0, math.inf, -math.inf, math.nan))
    f.msg("float64list_extremes", f64l(5e-324, sys.float_info.min, sys.float_info.max, math.pi))
    f.msg("float64list_253_one_byte_size", f64l(*[i / 8 for i in range(253)]))
    f.msg("float64list_254_fe_size", f64l(*[i / 8 for i in range(254)]))
    return f


def size_boundaries():
    f = VectorFile("standard-size-boundaries.json",
                   "The 65535/65536 boundary of the size prefix (FE + uint16 up to 65535, FF + uint32 from "
                   "65536) for strings (ASCII and multi-byte), Uint8List, List and a typed list whose "
                   "5-byte prefix makes the padding 2 bytes. Large file: kept apart from the topic files.")
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

    def ascii_text(n):
        return (alphabet * (n // len(alphabet) + 1))[:n]

    f.msg("string_ascii_65535_bytes_fe_size", ascii_text(65535))
    f.msg("string_ascii_65536_bytes_ff_size", ascii_text(65536))
    f.msg("string_euro_x21845_65535_bytes_fe_size", "€" * 21845)
    f.msg("string_euro_x21846_65538_bytes_ff_size", "€" * 21846)
    f.msg("uint8list_65535_fe_size", u8l(bytes(i % 251 for i in range(65535))))
    f.msg("uint8list_65536_ff_size", u8l(bytes(i % 251 for i in range(65536))))
    f.msg("list_65535_nulls_fe_size", [None] * 65535)
    f.msg("list_65536_falses_ff_size", [False] * 65536)
    data = f.msg("int32list_65536_ff_size_pad_2", i32l(1, *[0] * 65534, 65536))
    assert data[:8] == hx("09ff00000100 0000")
    return f


def alignment():
    f = VectorFile("standard-alignment.json",
                   "Alignment is counted from the first byte of the whole message. A list [string of n "
                   "bytes, X] puts X's tag at offset 4+n, so n = 0...7 walks a float64 (padding after the "
                   "tag) and each aligned typed list (padding after the size prefix) through all 8 "
                   "offsets; names give the resulting padding. Also: empty typed lists padded inside "
                   "containers, floats nested in maps and lists, typed lists after a 3-byte size prefix, "
                   "and the types that are never aligned.")
    text = "abcdefg"
    for n in range(8):
        pad = (-(4 + n + 1)) % 8
        data = f.msg(f"float64_after_string_len_{n}_pad_{pad}", [text[:n], f64(1.5)])
        assert data[4 + n] == 6 and data[5 + n:5 + n + pad] == bytes(pad)
    for tname, value, width in [("int32list", i32l(0x01020304, -2), 4), ("int64list", i64l(1, -2), 8),
                                ("float32list", f32l(1.5, -0.5), 4), ("float64list", f64l(1.5, -2.0), 8)]:
        for n in range(8):
            pad = (-(4 + n + 2)) % width
            f.msg(f"{tname}_after_string_len_{n}_pad_{pad}", [text[:n], value])
    for tname, value, width in [("int32list", i32l(), 4), ("int64list", i64l(), 8),
                                ("float32list", f32l(), 4), ("float64list", f64l(), 8)]:
        for n in range(4):
            pad = (-(4 + n + 2)) % width
            f.msg(f"empty_{tname}_after_string_len_{n}_pad_{pad}", [text[:n], value])
    f.msg("empty_int64list_then_float64", [i64l(), f64(2.0)],
          "0c02 0a00 00000000 06 00000000000000 0000000000000040")
    f.msg("three_float64_in_a_row", [f64(1.5), f64(2.5), f64(3.5)])
    f.msg("float64_after_null", [None, f64(1.5)], "0c02 00 06 00000000" + ONE_5)
    f.msg("float64_in_nested_list", [[f64(1.5)]], "0c01 0c01 06 000000" + ONE_5)
    f.msg("float64_map_value_after_string_key", smap(k=f64(1.5)), "0d01 07016b 06 0000" + ONE_5)
    f.msg("float64_as_map_key", mp((f64(1.5), None)), "0d01 06 00000000 00" + ONE_5 + "00")
    f.msg("float64_map_value_after_int32_key", mp((I32(1), f64(1.5))))
    f.msg("float64_after_uint8list", [u8l(b"\x01\x02\x03"), f64(1.5)])
    f.msg("float64list_after_string_len_3_fe_size", ["abc", f64l(*[i / 2 for i in range(254)])])
    f.msg("int32list_after_string_len_1_fe_size", ["a", i32l(*range(300))])
    f.msg("no_padding_int64_after_string_len_1", ["a", I64(1)], "0c02 070161 04 0100000000000000")
    f.msg("no_padding_int32_after_string_len_2", ["ab", I32(1)], "0c02 07026162 03 01000000")
    f.msg("no_padding_uint8list_after_string_len_1", ["a", u8l(b"\xff")], "0c02 070161 0801ff")
    f.msg("no_padding_string_after_string", ["a", "b"], "0c02 070161 070162")
    f.msg("mixed_alignment_record", smap(id=I64(7), x=f64(0.5), tags=f32l(1.0, 2.0), raw=u8l(b"\x00\x01"),
                                         ys=f64l(-1.0), name="p"))
    return f


def containers():
    f = VectorFile("standard-containers.json",
                   "Standard codec List (12) and Map (13): empty containers, every tag as an element, "
                   "size-prefix forms for element and pair counts, maps whose keys are null, numbers, "
                   "booleans, lists, maps and typed lists, pair order kept as written (not sorted), and "
                   "nested values including a list nested 50 deep.")
    f.msg("list_empty", [], "0c00")
    f.msg("list_one_null", [None], "0c0100")
    f.msg("list_of_empty_list", [[]], "0c010c00")
    f.msg("list_every_tag", [None, True, False, I32(-1), I64(-1), f64(0.5), "s", u8l(b"\x01"), i32l(2),
                             i64l(3), f64l(4.0), [], mp(), f32l(5.0)])
    f.msg("list_253_elements_one_byte_size", [I32(i) for i in range(253)])
    f.msg("list_254_elements_fe_size", [True] * 254)
    f.msg("list_nested_mixed", [[I32(1), [I32(2), [I32(3), []]]], [[[]]]])
    deep = I32(50)
    for _ in range(50):
        deep = [deep]
    f.msg("list_nested_50_deep", deep)
    f.msg("map_empty", mp(), "0d00")
    f.msg("map_string_keys", smap(a=I32(1), b="x"), "0d02 070161 0301000000 070162 070178")
    f.msg("map_order_kept_not_sorted", smap(b=I32(1), a=I32(2)), "0d02 070162 0301000000 070161 0302000000")
    f.msg("map_null_key", mp((None, "v")), "0d01 00 070176")
    f.msg("map_null_key_null_value", mp((None, None)), "0d01 00 00")
    f.msg("map_bool_keys", mp((True, I32(1)), (False, I32(0))))
    f.msg("map_int32_keys", mp((I32(1), "one"), (I32(-1), "minus one")))
    f.msg("map_int64_keys", mp((I64(1), "int64 one"), (I64(INT64_MAX), "max")))
    f.msg("map_int32_and_int64_key_of_same_number", mp((I32(1), "int32"), (I64(1), "int64")))
    f.msg("map_float64_keys", mp((f64(1.5), "x"), (f64(-0.0), "negative zero"), (f64(math.nan), "nan")))
    f.msg("map_list_key", mp(([I32(1), I32(2)], "pair")))
    f.msg("map_map_key", mp((smap(k="v"), I32(1))))
    f.msg("map_typed_list_keys", mp((u8l(b"\x01\x02"), I32(1)), (i32l(7), I32(2)), (f64l(0.5), I32(3))))
    f.msg("map_empty_string_key", mp(("", None)), "0d01 0700 00")
    f.msg("map_mixed_keys", mp(("a", I32(1)), (I32(1), "a"), (None, True), (["x"], mp())))
    f.msg("map_253_pairs_one_byte_size", Map(tuple((I32(i), None) for i in range(253))))
    f.msg("map_254_pairs_fe_size", Map(tuple((I32(i), None) for i in range(254))))
    f.msg("map_every_value_type", smap(null=None, t=True, f=False, i=I32(7), l=I64(8), d=f64(9.5), s="str",
                                       u8=u8l(b"\xab"), i32=i32l(1), i64=i64l(2), f32=f32l(3.0), f64=f64l(4.0),
                                       list=[None], map=smap(inner=None)))
    deep_map = "leaf"
    for i in range(20):
        deep_map = mp((f"level{19 - i}", deep_map))
    f.msg("map_nested_20_deep", deep_map)
    f.msg("list_of_maps_of_lists", [smap(a=[I32(1), smap(b=[])]), smap(), [mp((None, [None]))]])
    return f


def method():
    f = VectorFile("standard-method.json",
                   "StandardMethodCodec: a method call is the method name (a String value) followed by the "
                   "arguments value; envelopes are a flag byte (00 success, 01 error) followed by the result, "
                   "or by code, message (String or null), details and an optional fourth stacktrace value. "
                   "Everything is one message, so the name and flag shift float64 and typed-list padding.")
    f.call("call_null_args", "foo", None, "0703666f6f 00")
    f.call("call_exit_null_args", "exit", None)
    f.call("call_map_args", "method", smap(a=I32(1), b="x"), "07066d6574686f64 0d02 070161 0301000000 070162 070178")
    f.call("call_string_args", "setString", "value")
    f.call("call_int32_args", "setInt", I32(42))
    f.call("call_int64_args", "setInt", I64(2**40))
    f.call("call_bool_args", "setBool", False)
    f.call("call_list_args", "setList", ["a", "b"])
    f.call("call_uint8list_args", "write", u8l(b"\x00\x01\x02"))
    names = "abcdefg"
    for n in range(8):
        pad = (-(2 + n + 1)) % 8
        f.call(f"call_float64_args_method_len_{n}_pad_{pad}", names[:n], f64(1.5))
    for n in range(4):
        pad = (-(2 + n + 2)) % 8
        f.call(f"call_float64list_args_method_len_{n}_pad_{pad}", names[:n], f64l(0.5, 1.5))
    f.call("call_empty_method_name", "", None, "0700 00")
    f.call("call_unicode_method_name", "ünïcødé", None)
    f.call("call_method_name_254_bytes_fe_size", "m" * 254, None)
    f.call("call_nested_args", "getAll", smap(suite="group.com.example", keys=["a", "b"],
                                               options=smap(reload=True, timeout=f64(2.5))))

    f.success("success_null", None, "0000")
    f.success("success_true", True, "0001")
    f.success("success_int32", I32(7), "0003 07000000")
    f.success("success_int64", I64(-7), "0004 f9ffffffffffffff")
    f.success("success_float64_pad_6", f64(1.5), "0006 000000000000" + ONE_5)
    f.success("success_float64_negative_zero", f64(-0.0))
    f.success("success_string", "ok", "0007026f6b")
    f.success("success_empty_string", "", "000700")
    f.success("success_list", [I32(1), "two", None])
    f.success("success_map", smap(a=I32(1), b=[True]), "000d0207016103010000000701620c0101")
    f.success("success_float64list_pad_5", f64l(1.5), "000b01 0000000000" + ONE_5)
    f.success("success_empty_int64list_padded", i64l(), "000a00 0000000000")
    f.success("success_int32list_pad_1", i32l(5), "000901 00 05000000")
    f.success("success_uint8list", u8l(b"\xde\xad"), "000802dead")

    f.error("error_code_only", "error", None, None, "01 0705 6572726f72 00 00")
    f.error("error_empty_message", "E", "", None, "01 070145 0700 00")
    f.error("error_empty_code", "", "m", None, "01 0700 07016d 00")
    f.error("error_string_details", "E", "m", "details")
    f.error("error_int32_details", "E", "m", I32(-1))
    f.error("error_int64_details", "E", None, I64(INT64_MIN))
    f.error("error_bool_details", "E", None, True)
    for clen in range(1, 5):
        code = "EEEE"[:clen]
        tag_at = 1 + 2 + clen + 1  # flag, code tag+size+bytes, null message
        pad = (-(tag_at + 1)) % 8
        f.error(f"error_float64_details_code_len_{clen}_pad_{pad}", code, None, f64(0.25))
    f.error("error_float64list_details", "E", "m", f64l(1.0, 2.0))
    f.error("error_uint8list_details", "E", "m", u8l(b"\x01\x02"))
    f.error("error_list_details", "E", "m", [I32(1), "x", None])
    f.error("error_map_details", "E", "m", smap(file="a.dart", line=I32(10)))
    f.error("error_unicode_message", "ERR_ÜNÏ", "fehlgeschlagen: ü€😀", None)

    f.error_st("error_stacktrace_string", "E", "m", None, "at main (main.swift:1)")
    f.error_st("error_stacktrace_null", "E", "m", None, None, "01 070145 07016d 00 00")
    f.error_st("error_stacktrace_empty_string", "E", None, None, "", "01 070145 00 00 0700")
    f.error_st("error_stacktrace_multiline", "E", "m", smap(k=I32(1)), "#0 a (x:1)\n#1 b (y:2)\n")
    f.error_st("error_stacktrace_after_float64_details", "E", None, f64(1.5), "trace")
    f.error_st("error_stacktrace_null_message", "CODE", None, "details", "at Foo.bar(Foo.java:1)")
    return f


def malformed():
    f = VectorFile("standard-malformed.json",
                   "Input a strict Standard decoder must reject, and unusual input it must accept. Rejected: "
                   "unknown type bytes (15...127 reserved, 128...255 custom without an extension), truncation "
                   "inside every kind of payload and size prefix, missing padding, trailing bytes after the "
                   "top-level value, invalid UTF-8, counts larger than the bytes left (must fail before "
                   "allocating), method calls whose name is not a string, envelope flags other than 0/1, "
                   "malformed error envelopes. Accepted: the empty message (null), non-canonical size "
                   "prefixes, nonzero padding, the legacy tag 5 read as a string, duplicate map keys "
                   "(all pairs kept).")
    M, C, E = "message", "method_call", "envelope"
    r, a = f.reject, f.accept

    # unknown type bytes
    for tag in ("0f", "10", "7f", "ff"):
        r(f"msg_unknown_type_{tag}", M, tag, "unknownType")
    r("msg_unknown_type_0f_with_payload", M, "0f 00", "unknownType")
    r("msg_unknown_type_in_list", M, "0c01 0f", "unknownType")
    r("msg_unknown_type_as_map_key", M, "0d01 7f 00", "unknownType")
    # custom tags: only a codec extended with them can read the free-form payload
    r("msg_custom_128_point_without_extension", M, "80 09000000 10000000", "unknownType")
    r("msg_custom_129_nested_payload_without_extension", M, "81 0c01 070161", "unknownType")
    r("msg_custom_200_bare", M, "c8", "unknownType")

    # truncation
    for name, h in [("int32_no_bytes", "03"), ("int32", "030100"), ("int64", "04 01000000000000"),
                    ("float64_no_padding", "06"), ("float64_partial_padding", "06 000000"),
                    ("float64_value", "06 00000000000000 00000000f03f"),
                    ("string_no_size", "07"), ("string_bytes", "0703 6162"),
                    ("string_fe_size", "07fe 03"), ("string_ff_size", "07ff 030000"),
                    ("uint8list_bytes", "0804 ba5eba"), ("int32list_no_padding", "0901"),
                    ("int32list_elements", "0902 0000 78563412"), ("int64list_padding", "0a01 000000"),
                    ("int64list_elements", "0a01 000000000000 01000000"),
                    ("float64list_elements", "0b01 000000000000 00000000000000"),
                    ("float32list_elements", "0e02 0000 0000c03f"),
                    ("list_no_size", "0c"), ("list_missing_element", "0c02 00"),
                    ("list_size_fe", "0cfe 01"), ("list_size_ff", "0cff 010000"),
                    ("map_no_size", "0d"), ("map_missing_value", "0d01 00"),
                    ("map_second_pair_missing_value", "0d02 00 00 00"),
                    ("string_in_list", "0c01 07"), ("float64_in_list", "0c01 06 00"),
                    ("legacy_tag_5", "0503 2d66")]:
        r(f"msg_truncated_{name}", M, h, SHORT)
    r("msg_empty_int64list_unpadded_cpp_form", M, "0a00", "truncated")
    r("msg_empty_int32list_unpadded_cpp_form", M, "0900", "truncated")
    # CPP's unpadded [Int64List[], 2.0]: a padded reader swallows the float's tag as padding
    r("msg_cpp_unpadded_empty_int64list_then_float64", M, "0c02 0a00 06 000000 0000000000000040",
      "trailingBytes")

    # trailing bytes after the top-level value
    for name, h in [("null", "00 00"), ("true", "01 00"), ("int32", "0301000000 ff"), ("string", "0700 00"),
                    ("list", "0c00 0c00"), ("map", "0d00 ff"),
                    ("float64", "06 00000000000000" + ONE_0 + "00")]:
        r(f"msg_trailing_bytes_after_{name}", M, h, "trailingBytes")

    # invalid UTF-8
    for name, h in [("overlong_2_byte_slash", "c0af"), ("overlong_2_byte_c1", "c1bf"),
                    ("overlong_3_byte", "e080af"), ("overlong_4_byte", "f08080af"),
                    ("lone_continuation_80", "80"), ("lone_continuation_bf", "61bf62"),
                    ("truncated_2_byte_sequence", "c3"), ("truncated_2_byte_before_ascii", "c341"),
                    ("truncated_3_byte_sequence", "e282"), ("truncated_4_byte_sequence", "f09f98"),
                    ("surrogate_d800", "eda080"), ("surrogate_dfff", "edbfbf"),
                    ("surrogate_pair_cesu8", "eda0bdedb880"), ("above_u10ffff", "f4908080"),
                    ("byte_f5", "f5808080"), ("byte_fe", "fe"), ("byte_ff", "ff")]:
        data = bytes.fromhex(h)
        r(f"msg_invalid_utf8_{name}", M, bytes([7, len(data)]) + data, "invalidUTF8")
    r("msg_invalid_utf8_in_map_key", M, "0d01 0702c0af 00", "invalidUTF8")
    r("msg_invalid_utf8_in_legacy_tag_5", M, "0501 80", "invalidUTF8")

    # counts larger than the bytes left: rejected before allocating
    for name, h in [("list_0xffffffff", "0cffffffffff"), ("map_0xffffffff", "0dffffffffff"),
                    ("string_0x7fffffff", "07ffffffff7f"), ("uint8list_0x01000000", "08ff00000001"),
                    ("int32list_0x3fffffff", "09ffffff3f 0000 00000000"),
                    ("int64list_0x10000000", "0aff00000010 0000 0000000000000000"),
                    ("float64list_0xffff", "0bfeffff 0000 0000000000000000"),
                    ("float32list_0xffffffff", "0effffffffff"),
                    ("string_0xffff_with_3_bytes", "07feffff 616263"),
                    ("list_0xffff_with_1_element", "0cfeffff 00"),
                    ("map_3_pairs_in_4_bytes", "0d03 00000000"),
                    ("nested_list_0xffffffff", "0c01 0cffffffffff")]:
        r(f"msg_count_exceeds_bytes_{name}", M, h, "sizeTooLarge")

    # accepted
    a("msg_empty_is_null", M, "", None)
    a("msg_legacy_tag_5_read_as_string", M, "0503 2d6666", "-ff")
    a("msg_int64_tag_small_value", M, "04 0500000000000000", I64(5))
    a("msg_noncanonical_fe_size_string", M, "07fe0300 616263", "abc")
    a("msg_noncanonical_ff_size_string", M, "07ff03000000 616263", "abc")
    a("msg_noncanonical_fe_size_zero", M, "07fe0000", "")
    a("msg_noncanonical_fe_size_uint8list", M, "08fe0200 abcd", u8l(b"\xab\xcd"))
    a("msg_noncanonical_fe_size_list", M, "0cfe0100 00", [None])
    a("msg_noncanonical_ff_size_map", M, "0dff01000000 00 00", mp((None, None)))
    a("msg_noncanonical_ff_size_int32list_pad_2", M, "09ff01000000 0000 05000000", i32l(5))
    a("msg_noncanonical_fe_size_float64list_pad_4", M, "0bfe0100 00000000" + ONE_5, f64l(1.5))
    a("msg_nonzero_padding_float64", M, "06 ffffffffffffff" + ONE_0, f64(1.0))
    a("msg_nonzero_padding_float64_in_list", M, "0c02 070161 06 abab" + ONE_5, ["a", f64(1.5)])
    a("msg_nonzero_padding_int32list", M, "0901 abcd 05000000", i32l(5))
    a("msg_nonzero_padding_int64list", M, "0a01 ffffffffffff 0500000000000000", i64l(5))
    a("msg_nonzero_padding_float32list", M, "0e01 ffff 0000c03f", f32l(1.5))
    a("msg_nonzero_padding_float64list", M, "0b01 010203040506" + ONE_5, f64l(1.5))
    a("msg_nonzero_padding_empty_int64list", M, "0a00 ffffffffffff", i64l())
    a("msg_duplicate_map_keys_all_pairs_kept", M, "0d02 070161 0301000000 070161 0302000000",
      mp(("a", I32(1)), ("a", I32(2))))

    # method calls
    r("call_empty_input", C, "", "truncated")
    r("call_name_null", C, "00 00", "invalidMethodCall")
    r("call_name_int32", C, "0301000000 00", "invalidMethodCall")
    r("call_name_list", C, "0c00 00", "invalidMethodCall")
    r("call_name_uint8list", C, "0803666f6f 00", "invalidMethodCall")
    r("call_missing_args", C, "0703666f6f", "truncated")
    r("call_truncated_name", C, "0705666f6f", SHORT)
    r("call_trailing_bytes", C, "0703666f6f 00 00", "trailingBytes")
    r("call_trailing_bytes_after_map_args", C, "0703666f6f 0d00 0d00", "trailingBytes")
    r("call_invalid_utf8_name", C, "0702c0af 00", "invalidUTF8")
    r("call_args_truncated", C, "0703666f6f 030100", "truncated")
    r("call_args_unknown_type", C, "0703666f6f 0f", "unknownType")
    r("call_args_count_exceeds_bytes", C, "0703666f6f 0cffffffffff", "sizeTooLarge")
    a("call_noncanonical_fe_size_name", C, "07fe0300 666f6f 00", {"method": "foo", "args": None})
    a("call_nonzero_padding_float64_args", C, "0703616263 06 ffff" + ONE_5,
      {"method": "abc", "args": f64(1.5)})

    # envelopes
    r("env_empty_input", E, "", "truncated")
    for flag in ("02", "03", "80", "ff"):
        r(f"env_unknown_flag_{flag}", E, flag + "00", "invalidEnvelope")
    r("env_success_flag_only", E, "00", "truncated")
    r("env_error_flag_only", E, "01", "truncated")
    r("env_success_trailing_bytes", E, "00 00 00", "trailingBytes")
    r("env_success_trailing_bytes_after_int32", E, "00 0301000000 00", "trailingBytes")
    r("env_error_fifth_value", E, "01 070145 00 00 00 00", "trailingBytes")
    r("env_error_truncated_after_code", E, "01 070145", "truncated")
    r("env_error_truncated_after_message", E, "01 070145 00", "truncated")
    r("env_error_truncated_code", E, "01 0703 45", SHORT)
    r("env_error_code_null", E, "01 00 00 00", "invalidEnvelope")
    r("env_error_code_int32", E, "01 0301000000 00 00", "invalidEnvelope")
    r("env_error_code_uint8list", E, "01 080145 00 00", "invalidEnvelope")
    r("env_error_message_int32", E, "01 070145 0301000000 00", "invalidEnvelope")
    r("env_error_message_true", E, "01 070145 01 00", "invalidEnvelope")
    r("env_error_message_list", E, "01 070145 0c00 00", "invalidEnvelope")
    r("env_error_stacktrace_int32", E, "01 070145 00 00 0301000000", "invalidEnvelope")
    r("env_error_stacktrace_list", E, "01 070145 00 00 0c00", "invalidEnvelope")
    r("env_success_unknown_type", E, "00 0f", "unknownType")
    r("env_success_invalid_utf8", E, "00 0702c0af", "invalidUTF8")
    r("env_error_message_invalid_utf8", E, "01 070145 070180 00", "invalidUTF8")
    r("env_success_count_exceeds_bytes", E, "00 0cffffffffff", "sizeTooLarge")
    a("env_success_noncanonical_fe_size", E, "00 07fe0300 616263", {"result": "abc"})
    a("env_success_nonzero_padding_float64", E, "00 06 abababababab" + ONE_5, {"result": f64(1.5)})
    a("env_error_noncanonical_ff_size_code", E, "01 07ff01000000 45 00 00",
      {"code": "E", "message": None, "details": None})
    return f


def deep_nesting():
    f = VectorFile("standard-deep-nesting.json",
                   "The nesting limit (default 1,000 nested lists/maps). 999 and 1,000 nested lists decode; "
                   "1,001 nested lists or maps are rejected instead of exhausting the stack, wherever they occur. "
                   "Values at the limit also have a TVN text that reads back (typed-value-notation.md §6): "
                   "334 nested maps (more than 1,000 JSON levels), 1,000 levels of lists and maps mixed, "
                   "and 1,000 nested maps around a typed list, whose TVN nests 3,002 JSON levels. "
                   "Kept apart because the values are JSON nested up to about 3,000 deep: a vector loader "
                   "needs a JSON parser that allows that (Foundation's JSONSerialization stops at 512).")
    # The issue-14 case: 334 maps {null: ...} are 1,002 JSON levels of TVN.
    deep_map = None
    for _ in range(334):
        deep_map = mp((None, deep_map))
    f.msg("map_nested_334_deep", deep_map, "0d0100" * 334 + "00")
    # Every container kind and both map positions (key and value), 1,000 levels, at the codec's limit.
    mixed = i64l(-1, 2**40)
    for level in range(1000):
        kind = level % 4
        if kind == 0:
            mixed = [mixed]
        elif kind == 1:
            mixed = mp(("k", mixed))
        elif kind == 2:
            mixed = mp((mixed, I32(level)))
        else:
            mixed = [True, mixed, None]
    f.msg("mixed_nested_1000_deep", mixed)
    # The deepest TVN a value at the limit can have: 3 x 1,000 + 2 JSON levels.
    deepest = f32l(0.5)
    for _ in range(1000):
        deepest = mp((I32(0), deepest))
    f.msg("map_nested_1000_deep_float32list", deepest)
    value = None
    for _ in range(999):
        value = [value]
    f.accept("msg_999_nested_lists_accepted", "message", hx("0c01" * 999 + "00"), value)
    f.accept("msg_1000_nested_lists_accepted_at_the_limit", "message", hx("0c01" * 1000 + "00"), [value])
    f.reject("msg_1001_nested_lists_rejected", "message", "0c01" * 1001 + "00", "nestingTooDeep")
    f.reject("msg_1001_nested_maps_rejected", "message", "0d0100" * 1001 + "00", "nestingTooDeep")
    f.reject("msg_1001_nested_maps_as_keys_rejected", "message", "0d01" * 1001 + "00" + "00" * 1001,
             "nestingTooDeep")
    f.reject("msg_5000_nested_lists_rejected", "message", "0c01" * 5000 + "00", "nestingTooDeep")
    f.reject("call_args_1001_nested_lists_rejected", "method_call", "0703666f6f" + "0c01" * 1001 + "00",
             "nestingTooDeep")
    f.reject("env_success_1001_nested_lists_rejected", "envelope", "00" + "0c01" * 1001 + "00",
             "nestingTooDeep")
    return f


def nan_payloads():
    f = VectorFile("standard-nan-payloads.json",
                   "NaN bit patterns other than the canonical quiet NaN (7ff8000000000000 / 7fc00000) are "
                   "kept bit for bit by encoders and decoders. TVN writes them as \"NaN:\" followed by the "
                   "bit pattern in hex (16 digits for float64, 8 for a Float32List element), see "
                   "typed-value-notation.md.")
    for name, bits in [("negative_quiet", 0xFFF8000000000000), ("quiet_with_payload", 0x7FF8000000000001),
                       ("negative_quiet_with_payload", 0xFFF80000DEADBEEF), ("signaling", 0x7FF0000000000001),
                       ("all_ones", 0xFFFFFFFFFFFFFFFF)]:
        f.msg(f"float64_nan_{name}", F64(bits))
    f.msg("float64list_nan_payloads", f64l(("bits", 0x7FF8000000000000), ("bits", 0xFFF8000000000000),
                                           ("bits", 0x7FF0000000000001)))
    f.msg("float32list_nan_payloads", f32l(("bits", 0x7FC00000), ("bits", 0xFFC00000), ("bits", 0x7FC00001),
                                           ("bits", 0x7F800001)))
    f.msg("map_key_negative_nan", mp((F64(0xFFF8000000000000), "negative nan key")))
    return f


def build():
    return [scalars(), strings(), typed_lists(), size_boundaries(), alignment(), containers(), method(),
            malformed(), deep_nesting(), nan_payloads()]

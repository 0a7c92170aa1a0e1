"""The content of Protocol/vectors/json-*.json (JSONMessageCodec / JSONMethodCodec)."""

from model import I32, I64, f64, mp, smap, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX
from vectorfile import VectorFile


# Which of these a syntax error is reported as depends on where a parser notices it.
SYNTAX = ("invalidJSON", "truncated", "trailingBytes")


def t(text):
    """UTF-8 bytes of a JSON text."""
    return text.encode("utf-8")


def messages():
    f = VectorFile("json-messages.json",
                   "JSONMessageCodec: hex is the UTF-8 of one compact JSON text. Only values that survive "
                   "a JSON round trip appear here: null, booleans, int32 (integers that fit 32 bits), "
                   "int64 outside the int32 range, a few floats whose text every encoder agrees on, "
                   "strings, plain lists and maps with string keys in written order.", codec="json")
    f.msg("json_null", None, t("null").hex())
    f.msg("json_true", True, t("true").hex())
    f.msg("json_false", False, t("false").hex())
    for name, n in [("0", 0), ("42", 42), ("minus_1", -1), ("max", INT32_MAX), ("min", INT32_MIN)]:
        f.msg(f"json_int32_{name}", I32(n), t(str(n)).hex())
    for name, n in [("int32_max_plus_1", INT32_MAX + 1), ("int32_min_minus_1", INT32_MIN - 1),
                    ("max", INT64_MAX), ("min", INT64_MIN)]:
        f.msg(f"json_int64_{name}", I64(n), t(str(n)).hex())
    for name, x, text in [("1_5", 1.5, "1.5"), ("minus_0_25", -0.25, "-0.25"), ("1_0", 1.0, "1.0"),
                          ("100_0", 100.0, "100.0"), ("0_1", 0.1, "0.1")]:
        f.msg(f"json_float64_{name}", f64(x), t(text).hex())
    for name, s, text in [("empty", "", '""'), ("hello", "hello", '"hello"'),
                          ("e_acute_raw_utf8", "é", '"é"'), ("emoji_raw_utf8", "😂", '"😂"'),
                          ("euro_raw_utf8", "€", '"€"'), ("quote", 'a"b', '"a\\"b"'),
                          ("backslash", "a\\b", '"a\\\\b"'), ("slash_not_escaped", "a/b", '"a/b"'),
                          ("short_escapes", "\n\r\t\b\f", '"\\n\\r\\t\\b\\f"'),
                          ("nul_escaped", "a\u0000b", '"a\\u0000b"'), ("u001f_escaped", "\u001f", '"\\u001f"'),
                          ("u001b_lowercase_hex", "\u001b", '"\\u001b"'), ("del_raw", "\u007f", '"\u007f"'),
                          ("u2028_raw", "\u2028", '"\u2028"'), ("combining_not_normalized", "e\u0301", '"e\u0301"'),
                          ("mixed", "Grüße, 世界 \"x\"\n", '"Grüße, 世界 \\"x\\"\\n"')]:
        f.msg(f"json_string_{name}", s, t(text).hex())
    f.msg("json_list_empty", [], t("[]").hex())
    f.msg("json_list_mixed", [I32(1), "a", None, True, f64(1.5)], t('[1,"a",null,true,1.5]').hex())
    f.msg("json_list_nested", [[[]], [I32(1), [I32(2)]]], t("[[[]],[1,[2]]]").hex())
    f.msg("json_map_empty", mp(), t("{}").hex())
    f.msg("json_map_one", smap(a=I32(1)), t('{"a":1}').hex())
    f.msg("json_map_order_kept", smap(b=I32(1), a=I32(2)), t('{"b":1,"a":2}').hex())
    f.msg("json_map_empty_key_null_value", mp(("", None)), t('{"":null}').hex())
    f.msg("json_map_escaped_key", mp(('k"\n', I32(1))), t('{"k\\"\\n":1}').hex())
    f.msg("json_map_unicode", mp(("é", "€")), t('{"é":"€"}').hex())
    f.msg("json_map_nested", smap(outer=smap(inner=[I32(1), I32(2)], flag=False), n=None),
          t('{"outer":{"inner":[1,2],"flag":false},"n":null}').hex())
    f.msg("json_map_int64_and_float", smap(big=I64(2**40), ratio=f64(0.1)),
          t('{"big":1099511627776,"ratio":0.1}').hex())
    return f


def method():
    f = VectorFile("json-method.json",
                   "JSONMethodCodec: a call is {\"method\":name,\"args\":value} (method first; args null when "
                   "absent); success is [result]; error is [code,message,details] with message and details "
                   "null when absent, and [code,message,details,stacktrace] when a stacktrace is sent.",
                   codec="json")
    f.call("json_call_null_args", "foo", None, t('{"method":"foo","args":null}').hex())
    f.call("json_call_map_args", "foo", smap(a=I32(1)), t('{"method":"foo","args":{"a":1}}').hex())
    f.call("json_call_list_args", "setList", ["a", I32(2)], t('{"method":"setList","args":["a",2]}').hex())
    f.call("json_call_string_args", "setString", "v", t('{"method":"setString","args":"v"}').hex())
    f.call("json_call_float_args", "setDouble", f64(1.5), t('{"method":"setDouble","args":1.5}').hex())
    f.call("json_call_int64_args", "setInt", I64(-(2**40)), t('{"method":"setInt","args":-1099511627776}').hex())
    f.call("json_call_empty_method_name", "", None, t('{"method":"","args":null}').hex())
    f.call("json_call_escaped_method_name", 'a"b\\c', True, t('{"method":"a\\"b\\\\c","args":true}').hex())
    f.call("json_call_unicode_method_name", "ünï", None, t('{"method":"ünï","args":null}').hex())
    f.success("json_success_null", None, t("[null]").hex())
    f.success("json_success_int32", I32(1), t("[1]").hex())
    f.success("json_success_float", f64(1.0), t("[1.0]").hex())
    f.success("json_success_string", "x", t('["x"]').hex())
    f.success("json_success_map", smap(a=[True]), t('[{"a":[true]}]').hex())
    f.success("json_success_empty_list", [], t("[[]]").hex())
    f.error("json_error_code_only", "E", None, None, t('["E",null,null]').hex())
    f.error("json_error_map_details", "E", "m", smap(k=I32(1)), t('["E","m",{"k":1}]').hex())
    f.error("json_error_empty_message", "E", "", None, t('["E","",null]').hex())
    f.error("json_error_string_details", "error", "msg", "details", t('["error","msg","details"]').hex())
    f.error("json_error_list_details", "E", "m", [I32(1), I32(2)], t('["E","m",[1,2]]').hex())
    f.error("json_error_escaped_message", "E", "line1\nline2 \"q\"", None,
            t('["E","line1\\nline2 \\"q\\"",null]').hex())
    f.error_st("json_error_stacktrace_string", "E", "m", None, "trace", t('["E","m",null,"trace"]').hex())
    f.error_st("json_error_stacktrace_null", "E", None, None, None, t('["E",null,null,null]').hex())
    f.error_st("json_error_stacktrace_multiline", "E", "m", smap(a=I32(1)), "at x\nat y",
               t('["E","m",{"a":1},"at x\\nat y"]').hex())
    return f


def malformed():
    f = VectorFile("json-malformed.json",
                   "Input a strict JSON codec must reject, and unusual input it must accept: invalid JSON, "
                   "trailing text, invalid UTF-8, a byte-order mark, lone surrogate escapes, NaN/Infinity "
                   "literals, nesting deeper than 1,000; number classification on decode (int32, else "
                   "int64, else float64; fraction or exponent gives float64); top-level scalars and "
                   "surrounding whitespace; the empty message and the text null both decode as null; "
                   "malformed method calls and envelopes.", codec="json")
    M, C, E = "message", "method_call", "envelope"

    def r(name, mode, text, rule):
        f.reject(name, mode, text if isinstance(text, bytes) else t(text), rule)

    def a(name, mode, text, value):
        f.accept(name, mode, text if isinstance(text, bytes) else t(text), value)

    for name, text in [("open_brace", "{"), ("trailing_comma", "[1,]"),
                       ("single_quotes", "{'a':1}"), ("bare_word", "nul"),
                       ("unterminated_string", '"abc'), ("leading_zero", "01"),
                       ("plus_sign", "+1"), ("leading_dot", ".5"),
                       ("trailing_dot", "1."), ("bare_exponent", "1e"),
                       ("minus_only", "-"), ("nan_literal", "NaN"),
                       ("infinity_literal", "Infinity"),
                       ("negative_infinity_literal", "-Infinity"),
                       ("raw_newline_in_string", '"a\nb"'),
                       ("bad_escape", '"\\x"'), ("short_unicode_escape", '"\\u12"'),
                       ("lone_high_surrogate_escape", '"\\ud800"'),
                       ("lone_low_surrogate_escape", '"\\udc00"'),
                       ("key_without_value", '{"a"}'),
                       ("number_key", '{1:2}'), ("missing_comma", "[1 2]"),
                       ("whitespace_only", "  "), ("number_above_float64_range", "1e400"),
                       ("number_below_float64_range", "-1e400")]:
        r(f"json_msg_invalid_{name}", M, text, SYNTAX)
    for name, text in [("second_value", "1 2"), ("garbage_after_object", "{} x"), ("extra_bracket", "[]]"),
                       ("letters_after_null", "nullx")]:
        r(f"json_msg_trailing_{name}", M, text, "trailingBytes")
    r("json_msg_byte_order_mark", M, b"\xef\xbb\xbf" + t("1"), SYNTAX)
    r("json_msg_invalid_utf8_in_string", M, b'"\xc3("', "invalidUTF8")
    r("json_msg_invalid_utf8_overlong", M, b'"\xc0\xaf"', "invalidUTF8")
    r("json_msg_invalid_utf8_surrogate", M, b'"\xed\xa0\x80"', "invalidUTF8")
    r("json_msg_nesting_1001", M, "[" * 1001 + "]" * 1001, "nestingTooDeep")

    a("json_msg_empty_is_null", M, "", None)
    a("json_msg_null_text", M, "null", None)
    a("json_msg_top_level_int", M, "42", I32(42))
    a("json_msg_top_level_string", M, '"s"', "s")
    a("json_msg_whitespace_around", M, ' \t{"a" : 1 }\r\n', smap(a=I32(1)))
    a("json_msg_whitespace_inside_list", M, "[ 1 ,\n2 ]", [I32(1), I32(2)])
    a("json_msg_integral_text_is_int32", M, "100", I32(100))
    a("json_msg_fraction_is_float64", M, "1.0", f64(1.0))
    a("json_msg_exponent_is_float64", M, "1e2", f64(100.0))
    a("json_msg_uppercase_exponent_is_float64", M, "1E+2", f64(100.0))
    a("json_msg_negative_exponent", M, "2.5e-1", f64(0.25))
    a("json_msg_minus_zero_integer_is_int32_zero", M, "-0", I32(0))
    a("json_msg_minus_zero_float", M, "-0.0", f64(-0.0))
    a("json_msg_number_underflow_is_zero", M, "1e-400", f64(0.0))
    a("json_msg_int64_above_int32", M, "2147483648", I64(2147483648))
    a("json_msg_above_int64_is_float64", M, "9223372036854775808", f64(9223372036854775808.0))
    a("json_msg_below_int64_is_float64", M, "-9223372036854775809", f64(-9223372036854775809.0))
    a("json_msg_escapes_decoded", M, '"\\u00e9\\/\\ud83d\\ude00\\"\\\\"', 'é/😀"\\')
    a("json_msg_uppercase_unicode_escape", M, '"\\u00E9"', "é")
    a("json_msg_duplicate_keys_all_pairs_kept", M, '{"a":1,"a":2}', mp(("a", I32(1)), ("a", I32(2))))

    r("json_call_empty_input", C, "", SYNTAX)
    r("json_call_invalid_json", C, '{"method":', SYNTAX)
    r("json_call_missing_method", C, '{"args":null}', "invalidMethodCall")
    r("json_call_method_not_string", C, '{"method":1,"args":null}', "invalidMethodCall")
    r("json_call_method_null", C, '{"method":null}', "invalidMethodCall")
    r("json_call_duplicate_method_key", C, '{"method":"a","method":"b"}', "invalidMethodCall")
    r("json_call_duplicate_args_key", C, '{"method":"a","args":1,"args":2}', "invalidMethodCall")
    r("json_call_not_an_object", C, '["foo",null]', "invalidMethodCall")
    r("json_call_string", C, '"foo"', "invalidMethodCall")
    r("json_call_trailing_garbage", C, '{"method":"foo","args":null}x', "trailingBytes")
    a("json_call_missing_args_is_null", C, '{"method":"foo"}', {"method": "foo", "args": None})
    a("json_call_extra_keys_ignored", C, '{"method":"foo","args":1,"id":7}', {"method": "foo", "args": I32(1)})
    a("json_call_args_before_method", C, '{"args":[1],"method":"foo"}', {"method": "foo", "args": [I32(1)]})
    a("json_call_whitespace", C, ' { "method" : "foo" , "args" : null } ', {"method": "foo", "args": None})

    r("json_env_empty_input", E, "", SYNTAX)
    r("json_env_invalid_json", E, "[1", SYNTAX)
    r("json_env_length_0", E, "[]", "invalidEnvelope")
    r("json_env_length_2", E, "[1,2]", "invalidEnvelope")
    r("json_env_length_5", E, '["E",null,null,null,null]', "invalidEnvelope")
    r("json_env_not_an_array", E, '{"result":1}', "invalidEnvelope")
    r("json_env_number", E, "1", "invalidEnvelope")
    r("json_env_null", E, "null", "invalidEnvelope")
    r("json_env_code_not_string", E, '[1,"m",null]', "invalidEnvelope")
    r("json_env_code_null", E, "[null,null,null]", "invalidEnvelope")
    r("json_env_message_number", E, '["E",1,null]', "invalidEnvelope")
    r("json_env_stacktrace_number", E, '["E",null,null,1]', "invalidEnvelope")
    r("json_env_trailing_garbage", E, "[1]x", "trailingBytes")
    a("json_env_success_whitespace", E, " [ 1 ] ", {"result": I32(1)})
    a("json_env_error_whitespace", E, '[ "E" , null , null ]', {"code": "E", "message": None, "details": None})
    return f


def build():
    return [messages(), method(), malformed()]

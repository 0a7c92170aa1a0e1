import ChannelBridgeCodec

/// One value of every kind the store must keep exactly, each under its own key.
let sampleValues: [(key: String, value: StandardValue)] = [
    ("int32", .int32(-5)),
    ("int32.max", .int32(.max)),
    ("int32.min", .int32(.min)),
    ("int64.small", .int64(5)),
    ("int64.max", .int64(.max)),
    ("int64.min", .int64(.min)),
    ("int64.beyond2^53", .int64(9_007_199_254_740_993)),
    ("float64", .float64(0.1)),
    ("float64.integral", .float64(3)),
    ("float64.nan", .float64(.nan)),
    ("float64.-0", .float64(-0.0)),
    ("float64.+0", .float64(0.0)),
    ("float64.inf", .float64(.infinity)),
    ("float64.-inf", .float64(-.infinity)),
    ("float64.tiny", .float64(.leastNonzeroMagnitude)),
    ("bool.true", .bool(true)),
    ("bool.false", .bool(false)),
    ("string", .string("héllo ✓ 🎉")),
    ("string.empty", .string("")),
    ("string.escapes", .string("quote \" backslash \\ newline \n tab \t nul \u{0} del \u{7f}")),
    ("string.number", .string("42")),
    ("stringList", .list([.string("a"), .string("b c"), .string("")])),
    ("stringList.empty", .list([])),
    ("bytes", .uint8List([0, 255, 16, 0x7f])),
    ("bytes.empty", .uint8List([])),
    ("null", .null),
    ("int32List", .int32List([1, -2, .max])),
    ("int64List", .int64List([.min, 0, .max])),
    ("float32List", .float32List([0.1, -0.0, .nan])),
    ("float64List", .float64List([1.5, .nan, -.infinity])),
    (
        "map",
        .map([
            .init(.int32(1), .string("one")), .init(.null, .list([.bool(true)])),
            .init(.string("k"), .map([.init(.string("nested"), .int64(-1))])),
        ])
    ),
    ("", .string("the empty key")),
    ("key with \"quotes\"/slash and ünïcode", .int32(7)),
]

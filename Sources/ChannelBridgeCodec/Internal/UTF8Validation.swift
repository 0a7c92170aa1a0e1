/// Where the first invalid UTF-8 sequence in `bytes` starts (`bytes.count` when there is none), so
/// that errors can point at the byte.
func invalidUTF8Offset(_ bytes: some Collection<UInt8>) -> Int {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var position = 0
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar): position += UTF8.width(scalar)
        case .emptyInput, .error: return position
        }
    }
}

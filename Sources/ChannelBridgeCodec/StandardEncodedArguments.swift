/// A Standard-codec method call's arguments where they lie, in the message being handled: read
/// without decoding them into a `StandardValue` (`StandardMethodCodec.recentCallArguments(in:recent:)`
/// hands them out). Valid only during the handler call it is given to, as the message is.
package struct StandardEncodedArguments {
    /// The call's bytes from its arguments' type byte to the end of the message.
    let bytes: UnsafeRawBufferPointer
    /// The depth the codec lets values nest to.
    let maxDepth: Int

    /// The string under `name` when the arguments are exactly `{name: String}`: a map of that one
    /// entry, its key a String of `name`'s bytes with its size in one byte, its value a valid
    /// UTF-8 String with its size in any form, ending the message. `nil` for arguments of any
    /// other shape, which are then to be decoded in full: a string returned is always the one
    /// decoding the call and looking `name` up in the map gives, and `nil` says nothing about
    /// the call. (Such a message is far too small to reach the codec's decoding allowance.)
    package func onlyString(named name: StaticString) -> String? {
        guard let utf8 = onlyStringUTF8(named: name) else { return nil }
        return StandardReader.string(utf8: utf8)
    }

    /// The bytes of the string under `name`, as `onlyString(named:)` finds it, before they are
    /// checked as UTF-8: `onlyString(named:)` is these bytes as a `String`, or `nil` when they are
    /// not valid UTF-8. Valid only during the handler call, as `bytes` are.
    package func onlyStringUTF8(named name: StaticString) -> UnsafeRawBufferPointer? {
        let nameCount = name.utf8CodeUnitCount
        // Map, one entry, the key as a String in the one-byte size form, then the value's type.
        let sizeOffset = 4 + nameCount + 1
        guard maxDepth >= 1, nameCount < 254, bytes.count > sizeOffset,
            bytes[0] == StandardEncoding.map, bytes[1] == 1, bytes[2] == StandardEncoding.string,
            Int(bytes[3]) == nameCount, bytes[sizeOffset - 1] == StandardEncoding.string
        else { return nil }
        let nameBytes = name.utf8Start
        for index in 0..<nameCount where bytes[4 + index] != nameBytes[index] { return nil }
        // The value's size, in the form `StandardReader.readSize` reads.
        let first = bytes[sizeOffset]
        let count: Int
        let start: Int
        switch first {
        case ..<254:
            (count, start) = (Int(first), sizeOffset + 1)
        case 254 where bytes.count >= sizeOffset + 3:
            let size = bytes.loadUnaligned(fromByteOffset: sizeOffset + 1, as: UInt16.self)
            (count, start) = (Int(UInt16(littleEndian: size)), sizeOffset + 3)
        case 255 where bytes.count >= sizeOffset + 5:
            let size = bytes.loadUnaligned(fromByteOffset: sizeOffset + 1, as: UInt32.self)
            (count, start) = (Int(UInt32(littleEndian: size)), sizeOffset + 5)
        default:
            return nil
        }
        guard bytes.count - start == count else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[start...])
    }
}

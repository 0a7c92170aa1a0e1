import ChannelBridgeTestSupport
import Testing

/// The bytes the large-payload tests send: the generator's words, least significant byte first,
/// with a count that is not a whole number of words taking the low bytes of one more word.
@Suite struct SeededGeneratorTests {
    @Test func bytesAreTheGeneratorsWordsInOrder() {
        var words = SeededGenerator(seed: 5)
        let (first, second, third) = (words.next(), words.next(), words.next())
        var generator = SeededGenerator(seed: 5)
        let bytes = generator.bytes(count: 19)
        let expected =
            (0..<8).map { UInt8(truncatingIfNeeded: first >> ($0 * 8)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: second >> ($0 * 8)) }
            + (0..<3).map { UInt8(truncatingIfNeeded: third >> ($0 * 8)) }
        #expect(bytes == expected)
        #expect(generator.state == words.state)
    }

    @Test func aWholeNumberOfWordsTakesNoWordMore() {
        var generator = SeededGenerator(seed: 5)
        #expect(generator.bytes(count: 16).count == 16)
        var words = SeededGenerator(seed: 5)
        _ = (words.next(), words.next())
        #expect(generator.state == words.state)
        #expect(generator.bytes(count: 0) == [])
    }
}

import ChannelBridgeCodec
import Testing

/// The encoder's nested containers link to their parent; none of that may outlive `encode`, on
/// success or on a throw (found by LeakSanitizer: every nested container leaked with its parent).
@Suite struct StandardValueEncoderMemoryTests {
    /// Holds, weakly, the `Encoder` a value was encoded with.
    final class Probe: @unchecked Sendable {  // @unchecked: written once, in encode(to:), read after it
        weak var encoder: AnyObject?
    }

    struct Failure: Error {}

    enum Key: String, CodingKey { case outer, inner, list, superKey }

    /// A keyed container with a nested keyed container, a nested unkeyed one and a super encoder;
    /// throws at the end when asked to.
    struct Nesting: Encodable {
        let probe: Probe
        let fails: Bool

        func encode(to encoder: any Encoder) throws {
            probe.encoder = encoder as AnyObject
            var container = encoder.container(keyedBy: Key.self)
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: .outer)
            try nested.encode(1, forKey: .inner)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode("x")
            var deeper = list.nestedContainer(keyedBy: Key.self)
            try deeper.encode(true, forKey: .inner)
            try "s".encode(to: container.superEncoder(forKey: .superKey))
            if fails { throw Failure() }
        }
    }

    /// `Nesting` one level down, so the nested containers hang off a child encoder.
    struct Wrapper: Encodable {
        let inner: Nesting
    }

    @Test(arguments: [false, true])
    func encodersAreReleasedAfterEncoding(fails: Bool) {
        let top = Probe(), child = Probe()
        do {
            _ = try StandardValueEncoder().encode(Nesting(probe: top, fails: fails))
        } catch {
            #expect(error is Failure)
        }
        do {
            _ = try StandardValueEncoder().encode(Wrapper(inner: Nesting(probe: child, fails: fails)))
        } catch {
            #expect(error is Failure)
        }
        #expect(top.encoder == nil, "the top-level encoder outlived encode")
        #expect(child.encoder == nil, "a child encoder outlived encode")
    }
}

import ChannelBridgeCodec
import ChannelBridgeStore
import Testing
import ChannelBridgeTestSupport

/// Behaviour every `PreferenceStore` shares, run against the file store and the in-memory store.
@Suite struct PreferenceStoreContractTests {
    @Test(arguments: StoreKind.allCases)
    func typedValuesRoundTripExactly(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for (key, value) in sampleValues { try await store.set(value, forKey: key) }
            for (key, value) in sampleValues {
                let stored = try await store.value(forKey: key)
                #expect(stored == value, "key \(key)")
            }
            #expect(try await store.allValues() == sampleValues.map { PreferenceEntry(key: $0.key, value: $0.value) })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func missingKeyReadsAsNil(kind: StoreKind) async throws {
        try await kind.withStore { store in
            #expect(try await store.value(forKey: "absent") == nil)
            #expect(try await store.allValues() == [])
            try await store.set(.null, forKey: "null")
            #expect(try await store.value(forKey: "null") == .null)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func keysKeepTheOrderTheyWereFirstStoredIn(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for key in ["a", "b", "c"] { try await store.set(.string(key), forKey: key) }
            try await store.set(.string("a again"), forKey: "a")
            try await store.remove("b")
            try await store.set(.string("b again"), forKey: "b")
            #expect(
                try await store.allValues() == [
                    PreferenceEntry(key: "a", value: "a again"),
                    PreferenceEntry(key: "c", value: "c"),
                    PreferenceEntry(key: "b", value: "b again"),
                ])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func settingNilRemovesTheKey(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(.int32(1), forKey: "k")
            try await store.set(nil, forKey: "k")
            #expect(try await store.value(forKey: "k") == nil)
            #expect(try await store.allValues() == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func updateReplacesTheValueWithTheTransformResult(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for expected in Int64(1)...3 {
                let result = try await store.update(key: "counter") { old in
                    guard case .int64(let count)? = old else { return .int64(1) }
                    return .int64(count + 1)
                }
                #expect(result == .int64(expected))
            }
            #expect(try await store.value(forKey: "counter") == .int64(3))
            let removed = try await store.update(key: "counter") { _ in nil }
            #expect(removed == nil)
            #expect(try await store.value(forKey: "counter") == nil)
        }
    }

    struct TransformFailure: Error, Equatable {}

    @Test(arguments: StoreKind.allCases)
    func updateWritesNothingWhenTheTransformThrows(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(.string("kept"), forKey: "k")
            await #expect(throws: TransformFailure()) {
                try await store.update(key: "k") { _ in throw TransformFailure() }
            }
            #expect(try await store.value(forKey: "k") == .string("kept"))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func takeReturnsTheValueAndRemovesIt(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(.list(["item 1", "item 2"]), forKey: "itemList")
            try await store.set(.bool(true), forKey: "other")
            #expect(try await store.take(key: "itemList") == .list(["item 1", "item 2"]))
            #expect(try await store.value(forKey: "itemList") == nil)
            #expect(try await store.take(key: "itemList") == nil)
            #expect(try await store.allValues() == [PreferenceEntry(key: "other", value: true)])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aValueTooDeepToReadBackIsRefused(kind: StoreKind) async throws {
        var deep = StandardValue.list([])
        for _ in 0..<1_000 { deep = .list([deep]) }
        let value = deep
        try await kind.withStore { store async throws in
            let error = await #expect(throws: StoreError.self) { try await store.set(value, forKey: "deep") }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains("deep") == true)
            #expect(try await store.allValues() == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aCustomValueWithoutNotationIsRefused(kind: StoreKind) async throws {
        struct Point: CustomStandardValue { var x: Int32; var customTag: UInt8 { 130 } }
        try await kind.withStore { store in
            let error = await #expect(throws: StoreError.self) {
                try await store.set(.custom(CustomValue(Point(x: 1))), forKey: "point")
            }
            #expect(error?.code == .invalidValue)
            let raw = StandardValue.custom(CustomValue(RawCustomValue(tag: 128, payload: [1, 2])))
            try await store.set(raw, forKey: "raw")
            #expect(try await store.value(forKey: "raw") == raw)
        }
    }

    // MARK: - Change streams

    @Test(arguments: StoreKind.allCases)
    func everySetIsReportedEvenToTheSameValue(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let recorder = ChangeRecorder(try await store.changes())
            defer { recorder.stop() }
            try await store.set(.int32(1), forKey: "k")
            try await recorder.changes.first(1)
            try await store.set(.int32(1), forKey: "k")
            try await recorder.changes.first(2)
            try await store.remove("k")
            #expect(
                try await recorder.changes.first(3) == [
                    StoreChange(key: "k", value: .int32(1)),
                    StoreChange(key: "k", value: .int32(1)),
                    StoreChange(key: "k", value: nil),
                ])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func removeAllReportsOneChangePerRemovedKey(kind: StoreKind) async throws {
        try await kind.withStore { store in
            for key in ["a", "b", "c"] { try await store.set(.string(key), forKey: key) }
            let recorder = ChangeRecorder(try await store.changes())
            defer { recorder.stop() }
            try await store.removeAll()
            #expect(
                try await recorder.changes.first(3) == [
                    StoreChange(key: "a", value: nil),
                    StoreChange(key: "b", value: nil),
                    StoreChange(key: "c", value: nil),
                ])
            #expect(try await store.allValues() == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func writesThatChangeNothingReportNothing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let recorder = ChangeRecorder(try await store.changes())
            defer { recorder.stop() }
            try await store.remove("absent")
            try await store.removeAll()
            #expect(try await store.take(key: "absent") == nil)
            try await store.update(key: "absent") { _ in nil }
            try await store.set(.string("after"), forKey: "sentinel")
            // Changes arrive in write order, so the first one is the sentinel's only if the
            // writes before it reported nothing.
            #expect(try await recorder.changes.first(1) == [StoreChange(key: "sentinel", value: "after")])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aStreamReportsOnlyWritesAfterItWasCreated(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.set(.int32(1), forKey: "before")
            let recorder = ChangeRecorder(try await store.changes())
            defer { recorder.stop() }
            try await store.set(.int32(2), forKey: "after")
            #expect(try await recorder.changes.first(1) == [StoreChange(key: "after", value: .int32(2))])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func takeAndUpdateAreReportedAsChanges(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let recorder = ChangeRecorder(try await store.changes())
            defer { recorder.stop() }
            try await store.update(key: "list") { _ in .list(["x"]) }
            try await recorder.changes.first(1)
            _ = try await store.take(key: "list")
            #expect(
                try await recorder.changes.first(2) == [
                    StoreChange(key: "list", value: .list(["x"])),
                    StoreChange(key: "list", value: nil),
                ])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func everyStreamGetsEveryChangeAndAStoppedStreamDoesNotDisturbTheOthers(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let first = ChangeRecorder(try await store.changes(), name: "first")
            let second = ChangeRecorder(try await store.changes(), name: "second")
            defer { second.stop() }
            try await store.set(.int32(1), forKey: "one")
            #expect(try await first.changes.first(1) == [StoreChange(key: "one", value: .int32(1))])
            #expect(try await second.changes.first(1) == [StoreChange(key: "one", value: .int32(1))])
            first.stop()
            try await store.set(.int32(2), forKey: "two")
            #expect(
                try await second.changes.first(2) == [
                    StoreChange(key: "one", value: .int32(1)),
                    StoreChange(key: "two", value: .int32(2)),
                ])
        }
    }
}

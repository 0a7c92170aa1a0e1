import ChannelBridgePlatform
import ChannelBridgeTestSupport
import Testing

/// What the package relies on in the concurrency runtime's underscored and undeclared API, all
/// of it behind `RuntimeShim`: a toolchain update that changes it fails here, by name.
@Suite struct RuntimeShimTests {
    struct Refused: Error, Equatable {
        let code: Int
    }

    /// The threads a call through the shim ran on (before it, inside its body, after it returned),
    /// and how many jobs the executor started between the call and its body (a hop is one).
    struct Places: Equatable, Sendable {
        var before: UInt
        var inBody: UInt
        var after: UInt
        var hopsBeforeBody = 0
    }

    /// Awaits a continuation resumed with `outcome` from another thread; `Places` says where.
    /// Not isolated to anything: under a task-executor preference for `executor` it runs there.
    @concurrent static func await(
        _ outcome: Result<Int, Refused>, on executor: ThreadExecutor
    ) async -> (Result<Int, any Error>, Places) {
        let before = ThreadIdentity.current
        let jobsBefore = executor.startedJobs
        var inBody: UInt = 0
        var hops = 0
        let result: Result<Int, any Error>
        do {
            let value: Int = try await RuntimeShim.withContinuationInheritingExecutor { continuation in
                inBody = ThreadIdentity.current
                hops = executor.startedJobs - jobsBefore
                DetachedThread.start(name: "resumer") { continuation.resume(with: outcome) }
            }
            result = .success(value)
        } catch {
            result = .failure(error)
        }
        return (result, Places(before: before, inBody: inBody, after: ThreadIdentity.current, hopsBeforeBody: hops))
    }

    // MARK: withContinuationInheritingExecutor

    /// Under a task-executor preference the body runs where the call runs, with no job of the
    /// executor in between (the public form hops first: one job more), and the value comes back
    /// on that executor.
    @Test func underATaskExecutorPreferenceTheBodyRunsWithoutAHopAndTheValueComesBackThere() async throws {
        let executor = ThreadExecutor(name: "preferred")
        defer { executor.stop() }
        let (result, places) = try await withHangGuard {
            await withTaskExecutorPreference(executor) { await Self.await(.success(42), on: executor) }
        }
        #expect(try result.get() == 42)
        let thread = executor.thread
        #expect(places == Places(before: thread, inBody: thread, after: thread))
    }

    @Test func underATaskExecutorPreferenceTheErrorComesBackOnThatExecutor() async throws {
        let executor = ThreadExecutor(name: "preferred")
        defer { executor.stop() }
        let (result, places) = try await withHangGuard {
            await withTaskExecutorPreference(executor) { await Self.await(.failure(Refused(code: 7)), on: executor) }
        }
        #expect(throws: Refused(code: 7)) { try result.get() }
        let thread = executor.thread
        #expect(places == Places(before: thread, inBody: thread, after: thread))
    }

    /// An actor's call: the body runs on the actor's executor without leaving it (the public
    /// `withUnsafeThrowingContinuation(isolation: nil)` would run it on the global executor), and
    /// the call comes back to it.
    @Test func onAnActorTheBodyRunsAndTheCallReturnsOnTheActorsExecutor() async throws {
        let executor = ThreadExecutor(name: "actor")
        defer { executor.stop() }
        let pinned = Pinned(executor: executor)
        let (value, places) = try await withHangGuard { try await pinned.call(resumingWith: .success(5)) }
        #expect(value == 5)
        let thread = executor.thread
        #expect(places == Places(before: thread, inBody: thread, after: thread))
        await #expect(throws: Refused(code: 9)) { try await pinned.call(resumingWith: .failure(Refused(code: 9))) }
    }

    /// A continuation resumed inside the body, before the task suspended (a connection that is
    /// already closed fails a call so): the call returns that value.
    @Test func aContinuationResumedInsideTheBodyReturnsItsValue() async throws {
        let value: String = try await RuntimeShim.withContinuationInheritingExecutor { continuation in
            continuation.resume(returning: "at once")
        }
        #expect(value == "at once")
        await #expect(throws: Refused(code: 3)) {
            let _: String = try await RuntimeShim.withContinuationInheritingExecutor { continuation in
                continuation.resume(throwing: Refused(code: 3))
            }
        }
    }

    // MARK: currentTaskAddress

    @Test func theAddressIsTheTaskWithUnsafeCurrentTaskGives() async throws {
        // `UnsafeCurrentTask` holds the task's reference and nothing else: its bits are the address.
        try #require(MemoryLayout<UnsafeCurrentTask>.size == MemoryLayout<UInt>.size)
        let theirs = withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UInt.self) } ?? 0 }
        #expect(theirs != 0)
        #expect(RuntimeShim.currentTaskAddress == theirs)
        let child = await Task {
            (RuntimeShim.currentTaskAddress, withUnsafeCurrentTask { $0.map { unsafeBitCast($0, to: UInt.self) } ?? 0 })
        }.value
        #expect(child.0 == child.1)
    }

    @Test func aTaskKeepsItsAddressAcrossSuspensions() async {
        let mine = RuntimeShim.currentTaskAddress
        #expect(mine != 0)
        await Task.yield()
        #expect(RuntimeShim.currentTaskAddress == mine)
        await onThread { _ = 0 }
        #expect(RuntimeShim.currentTaskAddress == mine)
    }

    @Test func anotherTaskHasItsOwnAndAPlainThreadHasNone() async {
        let mine = RuntimeShim.currentTaskAddress
        let child = await Task { RuntimeShim.currentTaskAddress }.value
        let detached = await Task.detached { RuntimeShim.currentTaskAddress }.value
        #expect(child != 0 && detached != 0)
        #expect(child != mine && detached != mine)
        #expect(await onThread { RuntimeShim.currentTaskAddress } == 0)
        #expect(await onThread { withUnsafeCurrentTask { $0 == nil } })
    }
}

/// An actor on a `ThreadExecutor`, calling through the shim from its own isolation.
private actor Pinned {
    let executor: ThreadExecutor

    init(executor: ThreadExecutor) {
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    func call(
        resumingWith outcome: Result<Int, RuntimeShimTests.Refused>
    ) async throws -> (Int, RuntimeShimTests.Places) {
        let before = ThreadIdentity.current
        let jobsBefore = executor.startedJobs
        var inBody: UInt = 0
        var hops = 0
        let value: Int = try await RuntimeShim.withContinuationInheritingExecutor { continuation in
            inBody = ThreadIdentity.current
            hops = executor.startedJobs - jobsBefore
            DetachedThread.start(name: "resumer") { continuation.resume(with: outcome) }
        }
        return (
            value,
            RuntimeShimTests.Places(
                before: before, inBody: inBody, after: ThreadIdentity.current, hopsBeforeBody: hops)
        )
    }
}

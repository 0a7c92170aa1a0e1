/// Checks a `StoreHistory` against the store's model (Protocol/store.md, Protocol/extension-host.md
/// "Order within a session"):
/// - **registers** (one writer each): a read answers the value of the last write before it in its
///   worker's program order that had certainly taken effect — one acknowledged, or one of the
///   read's own session (answered in order) — or the value of a write whose outcome is unknown
///   (its connection died; it may land any time after it was sent); never a value the session
///   wrote later, nor an older acknowledged one. The final reads check that every acknowledged
///   write is visible or overwritten.
/// - **the list**: no item is taken twice or is both taken and still stored; every acknowledged
///   append is taken or still stored (unless a take's outcome stayed unknown); nothing appears
///   that was never appended; a worker's items appear in its program order within each take and
///   the final list, and across two takes one of which completed before the other began.
struct StoreHistoryChecker {
    struct Violation: Sendable, CustomStringConvertible {
        var description: String
    }

    let operations: [StoreHistory.Operation]
    /// The list as it stands at the end (read after every worker stopped).
    let finalList: [String]

    func violations() -> [Violation] {
        registerViolations() + listViolations()
    }

    /// One sweep per worker and key in program order, keeping the last write certain to have
    /// taken effect and the values of writes of unknown outcome, by session.
    private func registerViolations() -> [Violation] {
        var found: [Violation] = []
        var byRegister: [String: [StoreHistory.Operation]] = [:]
        for op in operations {
            switch op.kind {
            case .write(let key, _), .read(let key): byRegister[key, default: []].append(op)
            default: break
            }
        }
        for (key, ops) in byRegister {
            var lastAcknowledged: (position: Int, value: String?)?
            var lastOfSession: [Int: (position: Int, value: String?)] = [:]
            var unknown: [(session: Int, value: String?)] = []
            for op in ops.sorted(by: { $0.position < $1.position }) {
                switch (op.kind, op.outcome) {
                case (.write(_, let value), .ok):
                    lastAcknowledged = (op.position, value)
                case (.write(_, let value), .unknown), (.write(_, let value), .pending):
                    // Certain for a later read of its own session (answered in order), possible for others.
                    lastOfSession[op.session] = (op.position, value)
                    unknown.append((op.session, value))
                case (.read, .ok(let seen, _)):
                    let own = lastOfSession[op.session]
                    let certain =
                        (own?.position ?? -1) > (lastAcknowledged?.position ?? -1)
                        ? own?.value : lastAcknowledged?.value
                    var allowed: Set<String?> = [certain]
                    for write in unknown where write.session != op.session { allowed.insert(write.value) }
                    if !allowed.contains(seen) {
                        found.append(
                            Violation(
                                description: "worker \(op.worker) session \(op.session) read #\(op.position) of "
                                    + "\(key) answered \(seen ?? "nil"); allowed: \(allowed.map { $0 ?? "nil" }.sorted())"
                            ))
                    }
                default:
                    break
                }
            }
        }
        return found
    }

    private func listViolations() -> [Violation] {
        var found: [Violation] = []
        var appended: [String: StoreHistory.Operation] = [:]
        for op in operations { if case .append(let item) = op.kind { appended[item] = op } }
        let takes = operations.filter { if case .take = $0.kind { true } else { false } }
        let unknownTakes = takes.filter { if case .ok = $0.outcome { false } else { true } }
        var seen: [String: String] = [:]
        var lists: [(name: String, items: [String], op: StoreHistory.Operation?)] = []
        for take in takes {
            guard case .ok(_, let items) = take.outcome else { continue }
            lists.append(("take #\(take.position) of worker \(take.worker)", items, take))
        }
        lists.append(("the final list", finalList, nil))
        for list in lists {
            for item in list.items {
                if appended[item] == nil {
                    found.append(Violation(description: "\(list.name) holds \(item), never appended"))
                }
                if let other = seen[item] {
                    found.append(Violation(description: "\(item) is in \(other) and in \(list.name)"))
                }
                seen[item] = list.name
            }
            found += orderViolations(in: list.items, appended, list.name)
        }
        if unknownTakes.isEmpty {
            for (item, op) in appended where seen[item] == nil {
                if case .ok = op.outcome {
                    found.append(Violation(description: "\(item), acknowledged, was neither taken nor stored: lost"))
                }
            }
        }
        // Real-time order between takes: a take that completed before another was invoked took
        // each worker's earlier items. Swept in time order, keeping per worker the newest item
        // position among takes completed so far.
        let done = lists.compactMap { list in list.op.map { (items: list.items, op: $0) } }
        let byCompletion = done.sorted { $0.op.completed < $1.op.completed }
        var newestTaken: [Int: Int] = [:]
        var next = 0
        for later in done.sorted(by: { $0.op.invoked < $1.op.invoked }) {
            while next < byCompletion.count, byCompletion[next].op.completed < later.op.invoked {
                for item in byCompletion[next].items {
                    guard let op = appended[item] else { continue }
                    newestTaken[op.worker] = max(newestTaken[op.worker] ?? -1, op.position)
                }
                next += 1
            }
            for item in later.items {
                guard let op = appended[item], let newest = newestTaken[op.worker], op.position < newest else {
                    continue
                }
                found.append(
                    Violation(
                        description: "worker \(op.worker)'s append #\(op.position) was taken after its #\(newest)"))
            }
        }
        return found
    }

    private func orderViolations(
        in items: [String], _ appended: [String: StoreHistory.Operation], _ name: String
    ) -> [Violation] {
        var last: [Int: Int] = [:]
        var found: [Violation] = []
        for item in items {
            guard let op = appended[item] else { continue }
            if let previous = last[op.worker], previous > op.position {
                found.append(
                    Violation(
                        description: "\(name): worker \(op.worker)'s append #\(op.position) follows its #\(previous)"))
            }
            last[op.worker] = op.position
        }
        return found
    }

    static func worker(of item: String) -> Int? {
        guard item.hasPrefix("w"), let colon = item.firstIndex(of: ":") else { return nil }
        return Int(item[item.index(after: item.startIndex)..<colon])
    }
}

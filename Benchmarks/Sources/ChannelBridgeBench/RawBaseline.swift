import ChannelBridge

/// Runs one measurement of `channelbridge-raw-bench` (the C baselines, a separate executable of
/// this package) and returns the figures of the JSON object it prints.
enum RawBaseline {
    static let product = "channelbridge-raw-bench"

    static func run(
        _ command: String, _ options: [String: Int], flags: [String] = [],
        payload: String? = nil
    ) async throws -> [String: Double] {
        var arguments = [command]
        for (name, value) in options.sorted(by: { $0.key < $1.key }) {
            arguments += ["--\(name)", String(value)]
        }
        arguments += flags
        if let payload { arguments += ["--payload", payload] }
        let child = try ChildProcess(product: product, arguments: arguments)
        child.closeInput()
        let output = try await child.finish()
        BenchWatchdog.tick()
        guard case .object(let members)? = try? JSONValue.parse(output) else {
            throw BenchError("\(product) \(arguments.joined(separator: " ")) printed no JSON object: \(output)")
        }
        var figures: [String: Double] = [:]
        for member in members {
            if case .number(let text) = member.value, let value = Double(text) { figures[member.key] = value }
        }
        return figures
    }

    /// One figure of a run; throws if the C program did not report it.
    static func figure(_ name: String, in figures: [String: Double]) throws -> Double {
        guard let value = figures[name] else { throw BenchError("\(product) reported no \(name)") }
        return value
    }
}

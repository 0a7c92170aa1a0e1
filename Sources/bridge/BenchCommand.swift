import Foundation

/// `bridge bench [scenario ...] [--repeat N]`: each scenario against its baseline, interleaved,
/// reported as medians and per-repetition ratios.
enum BenchCommand: BridgeCommand {
    static let name = "bench"
    static let summary = "measure scenarios against a baseline in the same run"

    static let help = """
        usage: bridge bench [codec] [--repeat N] [--scale F]

        Scenarios:
          codec   StandardMessageCodec encode+decode of the representative payload
                  (5.2 KB, 145 values) vs Foundation's JSONEncoder/JSONDecoder on the same data

        Each scenario and its baseline run interleaved N times (default 5); the table shows the
        median and min–max of each figure and the median of the per-repetition ratios.
        Build in release mode for meaningful figures:
          swift run -c release bridge bench codec
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        let args = try Arguments(arguments, valued: ["repeat", "scale"])
        if args.wantsHelp {
            Output.line(help)
            return ExitCode.success
        }
        let repetitions = try positiveInt(args.value("repeat") ?? "5", "--repeat")
        guard let scale = Double(args.value("scale") ?? "1"), scale > 0 else { throw UsageError("--scale takes a positive number") }
        let scenarios = args.positionals.isEmpty ? ["codec"] : args.positionals
        for scenario in scenarios where scenario != "codec" {
            throw UsageError("unknown scenario '\(scenario)'; known: codec")
        }
        Output.line("scenario  figure                          ours median (min–max)        baseline median (min–max)     ratio")
        let figures = try CodecBenchmark.run(repetitions: repetitions, scale: scale)
        for figure in figures {
            Output.line("codec     " + row(figure))
        }
        return ExitCode.success
    }

    static func positiveInt(_ text: String, _ option: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw UsageError("\(option) takes a positive whole number") }
        return value
    }

    static func row(_ figure: BenchFigure) -> String {
        func show(_ values: [Double]) -> String {
            String(format: "%.2f (%.2f–%.2f)", BenchFigure.median(values), values.min() ?? .nan, values.max() ?? .nan)
        }
        return figure.name.padding(toLength: 32, withPad: " ", startingAt: 0)
            + show(figure.ours).padding(toLength: 29, withPad: " ", startingAt: 0)
            + show(figure.baseline).padding(toLength: 30, withPad: " ", startingAt: 0)
            + String(format: "%.4f×", figure.medianRatio)
    }
}

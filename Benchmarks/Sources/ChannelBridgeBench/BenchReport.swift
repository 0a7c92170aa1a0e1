import Foundation

/// Renders scenario results as the human table or as the JSON object scripts read.
enum BenchReport {
    static let tableHeader = [
        "scenario".padded(10), "figure".padded(27), "ratio".padded(9), "ours median (min–max)".padded(34),
        "baseline median (min–max)".padded(34), "baseline",
    ].joined()

    /// One line per row: ratio first, then the absolute numbers of this machine.
    static func tableLines(_ result: ScenarioResult) -> [String] {
        result.rows.map { row in
            [
                result.scenario.padded(10),
                row.figure.padded(27),
                (row.medianRatio.map { format($0) + "×" } ?? "—").padded(9),
                (row.ours.map(summary) ?? "—").padded(34),
                (row.baseline.map(summary) ?? "—").padded(34),
                row.baselineLabel,
            ].joined()
        }
    }

    static func summary(_ series: BenchSeries) -> String {
        guard let low = series.values.min(), let high = series.values.max() else { return "—" }
        return "\(format(series.median)) (\(format(low))–\(format(high)))"
    }

    /// Three significant digits, without exponent for the magnitudes that occur here.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let magnitude = abs(value)
        if magnitude >= 1000 { return String(format: "%.0f", value) }
        if magnitude >= 100 { return String(format: "%.1f", value) }
        if magnitude >= 10 { return String(format: "%.2f", value) }
        if magnitude >= 1 { return String(format: "%.3f", value) }
        return String(format: "%.4f", value)
    }

    /// `{"scenarios": {"<name>": {"ours": {...}, "baseline": {...}, "ratio": {...}}, ...}}`:
    /// medians of the figures and the median of the per-repetition ratios.
    static func json(_ results: [ScenarioResult]) -> String {
        let scenarios = results.map { result -> String in
            let ours = object(result.oursSeries.map { ($0.name, $0.median) })
            let baseline = object(result.baselineSeries.map { ($0.name, $0.median) })
            let ratio = object(result.rows.compactMap { row in row.medianRatio.map { (row.figure, $0) } })
            return "\(quoted(result.scenario)): {\"ours\": \(ours), \"baseline\": \(baseline), \"ratio\": \(ratio)}"
        }
        return "{\"scenarios\": {" + scenarios.joined(separator: ", ") + "}}"
    }

    private static func object(_ members: [(String, Double)]) -> String {
        "{" + members.map { "\(quoted($0.0)): \(number($0.1))" }.joined(separator: ", ") + "}"
    }

    /// JSON has no NaN or infinity; a figure that could not be measured is null.
    private static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension String {
    package func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

/// One figure measured once per repetition, e.g. `p50_us` of ChannelBridge.
struct BenchSeries: Sendable {
    var name: String
    var values: [Double]

    init(_ name: String, _ values: [Double] = []) {
        self.name = name
        self.values = values
    }

    var median: Double { Self.median(values) }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The sample at `fraction` of the sorted samples (nearest rank, as the C baselines pick it).
    static func percentile(_ samples: [Double], _ fraction: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        let index = Int(fraction * Double(sorted.count - 1) + 0.5)
        return sorted[min(max(index, 0), sorted.count - 1)]
    }
}

/// One line of the report: a figure of ours against a baseline figure from the same repetitions.
/// Ratios are taken per repetition (ours / baseline), then their median, so that machine noise
/// that hits both sides of one repetition cancels.
struct BenchRow: Sendable {
    /// The row's name: the baseline figure's name and the ratio's, or ours' when there is no baseline.
    var figure: String
    var ours: BenchSeries?
    var baseline: BenchSeries?
    /// What the baseline is, for the table (e.g. "raw C, one write per frame").
    var baselineLabel: String

    var ratios: [Double] {
        guard let ours, let baseline else { return [] }
        return zip(ours.values, baseline.values).map { $0 / $1 }
    }

    var medianRatio: Double? {
        let ratios = ratios
        return ratios.isEmpty ? nil : BenchSeries.median(ratios)
    }
}

/// Everything one scenario measured.
struct ScenarioResult: Sendable {
    var scenario: String
    var rows: [BenchRow]

    /// Ours' figures, each once, in row order.
    var oursSeries: [BenchSeries] { unique(rows.compactMap(\.ours)) }
    var baselineSeries: [BenchSeries] { unique(rows.compactMap(\.baseline)) }

    private func unique(_ series: [BenchSeries]) -> [BenchSeries] {
        var seen = Set<String>()
        return series.filter { seen.insert($0.name).inserted }
    }
}

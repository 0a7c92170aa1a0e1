/// Medians and ranges over repetitions; ratios are taken per repetition, then their median, so
/// that machine noise that hits both sides of one repetition cancels.
struct BenchFigure {
    var name: String
    var ours: [Double]
    var baseline: [Double]

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var ratios: [Double] { zip(ours, baseline).map { $0 / $1 } }
    var medianRatio: Double { Self.median(ratios) }
}

/// A benchmark could not run: a product is missing, a child failed, a reply was wrong.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

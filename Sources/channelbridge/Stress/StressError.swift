/// A stress scenario could not run: a product is missing, a child failed, a reply was wrong.
struct StressError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

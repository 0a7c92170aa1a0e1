/// A benchmark could not run: a product is missing, a child failed, a reply was wrong.
package struct BenchError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

extension String {
    /// This text left-aligned in a column of `width` characters; one space follows a longer text.
    func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

/// Stops the run with a finding: the message goes to stderr and the process traps, so libFuzzer
/// reports a crash and saves the input that caused it.
package func finding(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("FINDING: \(message)", file: file, line: line)
}

/// A finding unless `condition` holds. The message is only built for a finding.
package func require(
    _ condition: Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition { finding(message(), file: file, line: line) }
}

import Foundation

/// The edits that make Swift written for Flutter's iOS embedder compile against the `Flutter`
/// module on Linux, by the kind of file:
///
/// * Pigeon's output, recognised by its platform-import block ending in `#error`: the condition
///   before `import Flutter`, and the one before each host API's
///   `let taskQueue = binaryMessenger.makeBackgroundTaskQueue?()`, become
///   `#if os(iOS) || os(Linux)`; nothing else changes.
/// * A plugin's own file (an `import Flutter` under `#if os(iOS)` with no `#error` branch, or at
///   the top level): every `#if os(iOS)` line takes Linux too, and each top-level
///   `import Foundation` line goes (without leaving two blank lines in a row), so that
///   `UserDefaults` in that file is the `Flutter` module's (which re-exports Foundation; a file
///   importing both sees two `UserDefaults`).
///
/// Lines are compared without their indentation and keep it; "top level" is outside every
/// `#if … #endif`.
enum FlutterImportAdaptation {
    enum Adaptation: Equatable {
        case adapted(String)
        case alreadyAdapted
    }

    struct NotFound: Error {
        var message: String
    }

    static let original = "#if os(iOS)"
    static let replacement = "#if os(iOS) || os(Linux)"

    /// `text` adapted as its kind of file asks.
    static func adapt(_ text: String) throws(NotFound) -> Adaptation {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let trimmed = lines.map { $0.trimmingCharacters(in: .whitespaces) }
        let depths = conditionalDepths(trimmed)
        guard let importBlock = flutterImportBlock(trimmed) else {
            if trimmed.indices.contains(where: { trimmed[$0] == "import Flutter" && depths[$0] == 0 }) {
                return adaptPluginFile(lines, trimmed: trimmed, depths: depths)
            }
            throw NotFound(
                message:
                    "no Flutter import ('\(original)' followed by 'import Flutter', or a top-level 'import Flutter')")
        }
        if blockHasError(trimmed, from: importBlock) {
            return adaptPigeonOutput(lines, trimmed: trimmed)
        }
        return adaptPluginFile(lines, trimmed: trimmed, depths: depths)
    }

    /// Pigeon's edits: the import block's condition and the task-queue conditions.
    private static func adaptPigeonOutput(_ text: [String], trimmed: [String]) -> Adaptation {
        var lines = text
        var edited = false
        for index in lines.indices.dropLast() where trimmed[index] == original {
            let next = trimmed[index + 1]
            guard next == "import Flutter" || isTaskQueueLine(next) else { continue }
            lines[index] = lines[index].replacingOccurrences(of: original, with: replacement)
            edited = true
        }
        return edited ? .adapted(lines.joined(separator: "\n")) : .alreadyAdapted
    }

    /// A plugin file's edits: every `#if os(iOS)` widened, top-level `import Foundation` removed
    /// (with the blank line after it when the one before it is blank too, or it is the first, so
    /// that no blank lines double).
    private static func adaptPluginFile(_ lines: [String], trimmed: [String], depths: [Int]) -> Adaptation {
        var kept: [String] = []
        kept.reserveCapacity(lines.count)
        var edited = false
        var skipsBlankLine = false
        for index in lines.indices {
            if skipsBlankLine {
                skipsBlankLine = false
                if trimmed[index].isEmpty && index < lines.count - 1 { continue }
            }
            if trimmed[index] == "import Foundation" && depths[index] == 0 {
                edited = true
                skipsBlankLine = kept.last.map { $0.trimmingCharacters(in: .whitespaces).isEmpty } ?? true
                continue
            }
            if trimmed[index] == original {
                kept.append(lines[index].replacingOccurrences(of: original, with: replacement))
                edited = true
            } else {
                kept.append(lines[index])
            }
        }
        return edited ? .adapted(kept.joined(separator: "\n")) : .alreadyAdapted
    }

    /// The index of the condition line of the first `#if os(iOS)` (adapted or not) that is
    /// followed by `import Flutter`.
    private static func flutterImportBlock(_ trimmed: [String]) -> Int? {
        trimmed.indices.dropLast().first {
            (trimmed[$0] == original || trimmed[$0] == replacement) && trimmed[$0 + 1] == "import Flutter"
        }
    }

    /// Whether the `#if` block starting at `start` has an `#error` line of its own (not in a
    /// nested block).
    private static func blockHasError(_ trimmed: [String], from start: Int) -> Bool {
        var depth = 0
        for line in trimmed[start...] {
            switch directive(line) {
            case "#if": depth += 1
            case "#endif":
                depth -= 1
                if depth == 0 { return false }
            default:
                if depth == 1 && line.hasPrefix("#error") { return true }
            }
        }
        return false
    }

    /// For each line, how many `#if` blocks it is inside (a directive line counts as inside the
    /// blocks around it, not its own).
    private static func conditionalDepths(_ trimmed: [String]) -> [Int] {
        var depth = 0
        return trimmed.map { line in
            switch directive(line) {
            case "#if":
                depth += 1
                return depth - 1
            case "#endif":
                depth = max(0, depth - 1)
                return depth
            default:
                return depth
            }
        }
    }

    /// The directive a line starts with (`#if`, `#endif`, …), or "" for any other line.
    private static func directive(_ line: String) -> Substring {
        guard line.hasPrefix("#") else { return "" }
        return line.prefix { !$0.isWhitespace && $0 != "(" }
    }

    /// `let NAME = binaryMessenger.makeBackgroundTaskQueue?()`, as Pigeon writes it (24.0.0 on).
    private static func isTaskQueueLine(_ line: String) -> Bool {
        line.hasPrefix("let ") && line.hasSuffix(" = binaryMessenger.makeBackgroundTaskQueue?()")
    }
}

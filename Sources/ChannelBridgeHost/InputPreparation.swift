import FoundationEssentials

/// Turns the command line's input options into the request's input items, and puts shared files
/// where the originating extension puts them: copies in the app group's container.
package enum InputPreparation {
    /// The items as given: from `--items`, or one item with every `--text`, `--url` and `--file`
    /// in order plus `--title` and `--content-text`. File attachments still point at their sources.
    package static func items(from options: HostOptions) throws(HostError) -> [InputItem] {
        if let itemsFile = options.itemsFile { return try InputItemsFile.load(path: itemsFile) }
        let attachments = options.inputs.map { input -> InputAttachment in
            switch input {
            case .text(let text): return .text(text)
            case .url(let url): return .url(url)
            case .file(let path): return .file(path: AbsolutePath.of(path))
            }
        }
        return [InputItem(title: options.title, contentText: options.contentText, attachments: attachments)]
    }

    /// Checks that every file attachment's source is a readable regular file, before anything is
    /// copied or bound.
    package static func checkSources(_ items: [InputItem]) throws(HostError) {
        for case .file(let path, _) in items.flatMap(\.attachments).map(\.content) {
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw HostError(.invalidInput, "input file \(path): no such file")
            }
            guard !isDirectory else { throw HostError(.invalidInput, "input file \(path): is a directory") }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw HostError(.invalidInput, "input file \(path): not readable")
            }
        }
    }

    /// One file to copy into the container.
    package struct Copy: Sendable, Hashable {
        package var source: String
        package var destination: String
    }

    /// Where every file attachment's copy goes in `container`, and the items pointing at the
    /// copies. A copy is named as its attachment; two attachments with one name in the same
    /// request get distinct copies (`photo.png`, `photo-2.png`).
    package static func plannedCopies(
        _ items: [InputItem], into container: String
    )
        -> (planned: [InputItem], copies: [Copy])
    {
        var used: Set<String> = []
        var planned = items
        var copies: [Copy] = []
        for itemIndex in planned.indices {
            for attachmentIndex in planned[itemIndex].attachments.indices {
                guard case .file(let source, let name) = planned[itemIndex].attachments[attachmentIndex].content else {
                    continue
                }
                let unique = uniqueName(name, used: &used)
                let destination = container + "/" + unique
                copies.append(Copy(source: source, destination: destination))
                planned[itemIndex].attachments[attachmentIndex].content = .file(path: destination, name: unique)
            }
        }
        return (planned, copies)
    }

    /// Makes the copies. A file already in the container under a copy's name is replaced, as the
    /// originating extension does.
    package static func copy(_ copies: [Copy]) throws(HostError) {
        for copy in copies { try self.copy(copy.source, to: copy.destination) }
    }

    private static func uniqueName(_ name: String, used: inout Set<String>) -> String {
        if used.insert(name).inserted { return name }
        let (stem, ext): (String, String) = {
            if let dot = name.lastIndex(of: "."), dot != name.startIndex {
                return (String(name[..<dot]), String(name[dot...]))
            }
            return (name, "")
        }()
        var counter = 2
        while true {
            let candidate = "\(stem)-\(counter)\(ext)"
            if used.insert(candidate).inserted { return candidate }
            counter += 1
        }
    }

    private static func copy(_ source: String, to destination: String) throws(HostError) {
        let partial = partialPath(for: destination)
        let manager = FileManager.default
        do {
            try? manager.removeItem(atPath: partial)
            try manager.copyItem(atPath: source, toPath: partial)
            // Copied whole under a temporary name first, so the container never holds half a file
            // under the shared name.
            if manager.fileExists(atPath: destination) { try manager.removeItem(atPath: destination) }
            try manager.moveItem(atPath: partial, toPath: destination)
        } catch {
            try? manager.removeItem(atPath: partial)
            throw HostError(
                .store,
                "cannot copy \(source) into the container as \(destination): "
                    + InputItemsFile.reason(error))
        }
    }

    /// `DIR/.NAME.partial` for `DIR/NAME`: beside the destination, so the final rename stays on
    /// one file system, and hidden. A destination is always `container/name`, one name without '/'.
    private static func partialPath(for destination: String) -> String {
        guard let slash = destination.lastIndex(of: "/") else { return ".\(destination).partial" }
        return "\(destination[..<slash])/.\(destination[destination.index(after: slash)...]).partial"
    }
}

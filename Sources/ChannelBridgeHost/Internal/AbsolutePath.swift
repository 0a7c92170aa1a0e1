import ChannelBridgePlatform
import FoundationEssentials

/// Turns a path given on the command line into the absolute path the host hands out (input
/// items, the app-group container, the share key's file URLs), so a client in any working
/// directory can use it.
///
/// A relative path is joined to the working directory the shell shows (`$PWD`, when it names
/// the same directory as `.`), else to the kernel's (`getcwd`). No symbolic link the user chose
/// is resolved, and a leading `./` is dropped; `..` stays as given, as resolving it lexically
/// would be wrong across a symbolic link.
enum AbsolutePath {
    static func of(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var relative = Substring(path)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2).drop(while: { $0 == "/" }) }
        let base = workingDirectory()
        if relative.isEmpty || relative == "." { return base }
        return (base.hasSuffix("/") ? base : base + "/") + relative
    }

    /// `$PWD` when it is absolute and the same file as `.`, else the kernel's working directory.
    static func workingDirectory() -> String {
        let physical = FileManager.default.currentDirectoryPath
        guard let logical = Syscalls.environment("PWD"), logical.hasPrefix("/"), logical != physical,
            let shown = FileCalls.status(logical), let actual = FileCalls.status(".")
        else { return physical }
        return shown.device == actual.device && shown.inode == actual.inode ? logical : physical
    }
}

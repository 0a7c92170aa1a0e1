import ChannelBridgePlatform

/// What `stat(2)` says about one preferences file: enough to tell, without reading it, whether
/// the file a path names now is the very file a cached document was read from.
///
/// Writers never change `preferences.json` in place; they rename a new file over it, which gives
/// the path another inode. The cache keeps the file it read open, so that inode cannot be freed
/// and handed to a later file while the cache relies on it: an equal device and inode is then the
/// same file. Size, modification and change times catch a tool that rewrites the file in place.
struct FileIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var changedSeconds: Int
    var changedNanoseconds: Int

    init(_ status: FileCalls.Status) {
        device = status.device
        inode = status.inode
        size = Int64(status.size)
        (modifiedSeconds, modifiedNanoseconds) = status.modified
        (changedSeconds, changedNanoseconds) = status.changed
    }
}

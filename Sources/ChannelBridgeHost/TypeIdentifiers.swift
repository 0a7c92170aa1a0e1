/// The uniform type identifiers the host uses, and which of them count as images and movies.
/// iOS has a conformance tree; the host knows the common leaves of the two branches it needs.
package enum TypeIdentifiers {
    package static let plainText = "public.plain-text"
    package static let url = "public.url"
    package static let fileURL = "public.file-url"
    package static let image = "public.image"
    package static let movie = "public.movie"

    static let imageIdentifiers: Set<String> = [
        "public.image", "public.jpeg", "public.png", "public.heic", "public.heif", "public.tiff",
        "public.jpeg-2000", "public.camera-raw-image", "public.svg-image", "com.compuserve.gif",
        "com.microsoft.bmp", "org.webmproject.webp", "com.microsoft.ico",
    ]
    static let movieIdentifiers: Set<String> = [
        "public.movie", "public.video", "public.mpeg-4", "public.mpeg", "public.avi", "public.3gpp",
        "com.apple.quicktime-movie", "com.apple.m4v-video", "org.matroska.mkv", "org.webmproject.webm",
    ]
    static let textIdentifiers: Set<String> = [
        "public.plain-text", "public.text", "public.utf8-plain-text", "public.utf16-plain-text",
    ]
    static let imageExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "heic", "heif", "webp", "bmp", "tif", "tiff", "svg", "ico",
    ]
    static let movieExtensions: Set<String> = ["mp4", "mov", "m4v", "avi", "mkv", "webm", "3gp", "mpg", "mpeg"]

    package static func isImage(_ identifier: String) -> Bool { imageIdentifiers.contains(identifier) }
    package static func isMovie(_ identifier: String) -> Bool { movieIdentifiers.contains(identifier) }
    package static func isText(_ identifier: String) -> Bool { textIdentifiers.contains(identifier) }

    /// `public.image` or `public.movie` by the file name's extension (any case), else `public.file-url`.
    package static func forFile(named name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fileURL }
        let ext = name[name.index(after: dot)...].lowercased()
        if imageExtensions.contains(ext) { return image }
        if movieExtensions.contains(ext) { return movie }
        return fileURL
    }

    static func lastPathComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        if let slash = trimmed.lastIndex(of: "/") { return String(trimmed[trimmed.index(after: slash)...]) }
        return String(trimmed)
    }
}

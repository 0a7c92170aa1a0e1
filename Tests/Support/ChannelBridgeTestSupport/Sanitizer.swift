import Glibc

/// The sanitizer this test run was built with (`swift test --sanitize=thread|address`), if any.
///
/// Found at run time from the sanitizer's own entry point in the process, so it holds however the
/// suite was started (`Scripts/sanitize`, or `swift test --sanitize=…` by hand). For the few tests
/// that cannot mean the same thing in a sanitized build; each says why where it is disabled:
///
/// ```swift
/// @Test(.disabled(if: Sanitizer.current != nil, "why this test cannot run sanitized"))
/// ```
public enum Sanitizer: String, Sendable {
    case thread
    case address

    public static let current: Sanitizer? = {
        if dlsym(nil, "__tsan_init") != nil { return .thread }
        if dlsym(nil, "__asan_init") != nil { return .address }
        return nil
    }()
}

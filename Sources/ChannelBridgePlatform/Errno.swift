import Glibc

/// The error numbers the modules above this one test for, by their POSIX names.
package enum Errno {
    package static let EAGAIN = Glibc.EAGAIN
    package static let EWOULDBLOCK = Glibc.EWOULDBLOCK
    package static let EINTR = Glibc.EINTR
    package static let ENOENT = Glibc.ENOENT
    package static let EEXIST = Glibc.EEXIST
    package static let ELOOP = Glibc.ELOOP
    package static let EADDRINUSE = Glibc.EADDRINUSE
    package static let ECONNREFUSED = Glibc.ECONNREFUSED
    package static let ECONNABORTED = Glibc.ECONNABORTED
    package static let EPROTO = Glibc.EPROTO
    package static let EMFILE = Glibc.EMFILE
    package static let ENFILE = Glibc.ENFILE
    package static let ENOBUFS = Glibc.ENOBUFS
    package static let ENOMEM = Glibc.ENOMEM
    package static let ETIMEDOUT = Glibc.ETIMEDOUT
}

import CChannelBridgeSyscalls
import Glibc

/// Child processes an executable starts and reaps itself (an isolated host's workers): started with
/// `posix_spawn`, never `fork` (a threaded process), and waited for so that none is left a zombie.
package enum ProcessSpawn {
    /// How a child ended.
    package enum End: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let number): "died by \(ProcessSpawn.signalName(number))"
            }
        }
    }

    /// Starts `path` with `arguments` (the first is the program's name), this process's
    /// environment plus `environment` (`NAME=value`), and the descriptors `descriptors` as
    /// `target` in the child (each `source` must be none of the targets); its standard input and
    /// output are /dev/null, its standard error this process's, and it leads a process group of
    /// its own, so that a terminal's SIGINT does not reach it. Returns the pid, or the error
    /// number.
    package static func start(
        path: String, arguments: [String], environment: [String],
        descriptors: [(source: Int32, target: Int32)]
    ) -> Result<Int32, SpawnFailure> {
        var inherited: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            inherited.append(String(cString: pointer))
            entry += 1
        }
        let names = Set(environment.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        inherited.removeAll { entry in names.contains(where: { entry.hasPrefix($0 + "=") }) }
        let argumentPointers = arguments.map { strdup($0) } + [nil]
        let environmentPointers = (inherited + environment).map { strdup($0) } + [nil]
        defer {
            for pointer in argumentPointers { free(pointer) }
            for pointer in environmentPointers { free(pointer) }
        }
        let sources = descriptors.map { $0.source }, targets = descriptors.map { $0.target }
        var pid: Int32 = 0
        let result = argumentPointers.withUnsafeBufferPointer { argv in
            environmentPointers.withUnsafeBufferPointer { envp in
                cb_spawn(path, argv.baseAddress, envp.baseAddress, sources, targets, Int32(sources.count), &pid)
            }
        }
        guard result == 0 else { return .failure(SpawnFailure(errno: result)) }
        return .success(pid)
    }

    /// Why a child could not be started.
    package struct SpawnFailure: Error, Sendable {
        package let errno: Int32
        package var message: String { Syscalls.errorText(errno) }
    }

    /// Waits until child `pid` has ended and reaps it. With `killAfter`, a child still running
    /// then is killed (SIGKILL) first, and `killed` says so. Blocks: call it on a thread of its
    /// own, never on the concurrency pool.
    package static func waitForEnd(of pid: Int32, killAfter milliseconds: Int32?) -> (end: End, killed: Bool) {
        var killed = false
        if let milliseconds {
            let pidfd = cb_pidfd_open(pid)
            if pidfd >= 0 {
                var poller = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                var ready: Int32
                repeat { ready = Glibc.poll(&poller, 1, milliseconds) } while ready < 0 && errno == EINTR
                Glibc.close(pidfd)
                if ready == 0 {
                    _ = Glibc.kill(pid, SIGKILL)
                    killed = true
                }
            } else {
                // No pidfd (a kernel before 5.3): the child is not waited for longer than asked.
                _ = Glibc.kill(pid, SIGKILL)
                killed = true
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return (.exited(-1), killed) }
        }
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Swift does not import (macros).
        let signal = status & 0x7f
        if signal != 0 && signal != 0x7f { return (.signalled(signal), killed) }
        return (.exited((status >> 8) & 0xff), killed)
    }

    /// Sends SIGKILL to `pid`.
    package static func kill(_ pid: Int32) {
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// `SIGILL`, `SIGSEGV`, ...; `signal N` for one without a name here.
    package static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGSEGV: "SIGSEGV"
        case SIGKILL: "SIGKILL"
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(number)"
        }
    }
}

import Glibc
import TocsinBase

/// The user's hook files: `$XDG_CONFIG_HOME/tocsin/hooks/EVENT`
/// (`~/.config/tocsin/hooks/finish`), run for that event of every timer.
/// Only a regular, executable file the user owns and nobody else may write,
/// in a folder (and a folder above it) of the user's nobody else may write,
/// is run: an app or another user able to write there must not get to run
/// commands as the user. What is wrong with one is said once in the log
/// (again only when it changes).
extension TimerService {
    /// The standard folder of hook files.
    package static func standardHooksFolder() -> String {
        let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let config = environment("XDG_CONFIG_HOME") ?? ((environment("HOME") ?? "/nonexistent") + "/.config")
        return config + "/tocsin/hooks"
    }

    /// The hook file of `event`, if there is one that may run; nil if
    /// there is none (or it may not run: said once).
    func hookPath(for event: ScriptEvent) -> String? {
        guard let folder = hooksFolder, folderIsTheUsers(folder) else { return nil }
        let path = folder + "/" + event.rawValue
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let failure = errno
            if failure != ENOENT && failure != ENOTDIR {
                complain(path, "cannot be looked at (\(String(cString: strerror(failure))))")
            } else {
                hookComplaints[path] = nil
            }
            return nil
        }
        // A symbolic link is followed, and what it names judged.
        if info.st_mode & S_IFMT == S_IFLNK, stat(path, &info) != 0 {
            complain(path, "is a link to nothing (\(String(cString: strerror(errno))))")
            return nil
        }
        let problem: String? = if info.st_mode & S_IFMT != S_IFREG {
            "is not a regular file"
        } else if info.st_uid != getuid() {
            "belongs to user \(info.st_uid), not to the service's user \(getuid())"
        } else if info.st_mode & 0o022 != 0 {
            "may be written by others (chmod go-w)"
        } else if info.st_mode & 0o100 == 0 {
            "is not executable (chmod u+x)"
        } else {
            nil
        }
        if let problem {
            complain(path, problem)
            return nil
        }
        hookComplaints[path] = nil
        return path
    }

    /// Logs `saying` (by default: "hook PATH PROBLEM: not run") unless it
    /// is what was said last of `path`.
    private func complain(_ path: String, _ problem: String, saying: String? = nil) {
        guard hookComplaints[path] != problem else { return }
        hookComplaints[path] = problem
        logLine(saying ?? "hook \(path) \(problem): not run")
    }

    /// True if the hooks' folder, and the one holding it, are folders of
    /// the user's that nobody else may write (else another user could put
    /// a file there between the look and the run): said once otherwise.
    /// No folder at all: no hooks, nothing said.
    private func folderIsTheUsers(_ folder: String) -> Bool {
        let parent = String(folder[..<(folder.lastIndex(of: "/") ?? folder.endIndex)])
        for path in [parent, folder] {
            var info = stat()
            guard stat(path, &info) == 0 else { return false }
            let problem: String? = if info.st_mode & S_IFMT != S_IFDIR {
                "is not a folder"
            } else if info.st_uid != getuid() {
                "belongs to user \(info.st_uid), not to the service's user \(getuid())"
            } else if info.st_mode & 0o022 != 0 {
                "may be written by others (chmod go-w)"
            } else {
                nil
            }
            if let problem {
                complain(path, problem, saying: "hook folder \(path) \(problem): no hook in it is run")
                return false
            }
            hookComplaints[path] = nil
        }
        return true
    }
}

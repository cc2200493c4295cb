import Glibc

/// Writes to a file descriptor at once and whole, without stdio's buffer:
/// a line to a pipe (a status bar, `jq`) must not wait for a buffer to fill,
/// and a message must not be lost when the process ends by `_exit` or a
/// signal. Interrupted writes are carried on; a short write is continued.
package enum Descriptor {
    /// Writes all of `bytes` to `fd`; 0, or the `errno` of the write that
    /// failed (`ENOSPC` for one that wrote nothing).
    @discardableResult
    package static func write(_ bytes: [UInt8], to fd: Int32) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.unsafelyUnwrapped + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? errno : ENOSPC }
            offset += written
        }
        return 0
    }

    /// Writes `text` to `fd` as it is.
    @discardableResult
    package static func write(_ text: String, to fd: Int32) -> Int32 {
        write(Array(text.utf8), to: fd)
    }

    /// `line` and a newline on standard output.
    package static func say(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// `line` and a newline on standard error.
    package static func complain(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }
}

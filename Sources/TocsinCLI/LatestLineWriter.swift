import Glibc
import TocsinBase
import TocsinService

/// Standard output for a bar that may stop reading: on a pipe or socket it
/// is made non-blocking, a line that does not fit waits for the reader (a
/// GLib watch on the main loop), and while one waits only the newest line
/// is kept. So a stalled bar never blocks `tocsin ls --follow`: it keeps
/// reading the service's signals (dbus-daemon would otherwise queue them
/// for it), and when the bar reads again it gets the line of now, not one
/// per second it missed. A line once begun is always finished (a bar's
/// protocol has no half lines). Elsewhere (a terminal, a file) writes are
/// plain: a terminal's flags are shared with the shell.
final class LatestLineWriter {
    private let fd: Int32
    private let coalesces: Bool
    /// What is left of the line being written, and the newest line waiting.
    private var unsent: [UInt8] = []
    private var waiting: [UInt8]?
    private var watch: WritableWatch?

    init(fd: Int32 = STDOUT_FILENO) {
        self.fd = fd
        var info = stat()
        let kind = fstat(fd, &info) == 0 ? info.st_mode & S_IFMT : 0
        coalesces = (kind == S_IFIFO || kind == S_IFSOCK) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0
    }

    /// Writes `line` and a newline now, or as soon as the reader takes it
    /// (replacing a line that waits).
    func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        guard coalesces else {
            Descriptor.write(bytes, to: fd)
            return
        }
        if unsent.isEmpty {
            unsent = bytes
            drain()
        } else {
            waiting = bytes
        }
    }

    /// Writes what it can; watches for room while something is left.
    private func drain() {
        while !unsent.isEmpty {
            let count = unsent.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == EAGAIN {
                guard watch == nil else { return }
                // (unowned: the writer holds the watch, which goes with it)
                watch = WritableWatch(fd: fd) { [unowned self] in
                    watch = nil  // drain watches again if it must wait
                    drain()
                }
                return
            }
            guard count > 0 else {  // the reader has gone: nothing more to write
                unsent = []
                waiting = nil
                return
            }
            unsent.removeFirst(count)
            if unsent.isEmpty, let next = waiting {
                unsent = next
                waiting = nil
            }
        }
    }
}

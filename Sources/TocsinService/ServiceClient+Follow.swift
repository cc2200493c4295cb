import CGio
import Glibc
import TocsinBase

/// `follow` with a beat: what a status bar needs besides the signals.
extension ServiceClient {
    /// Delivers the signals `subscribe` asked for, and calls `beat` at every
    /// whole second of the wall clock (aligned, so that a bar's seconds turn
    /// with the clock's) and `line` with each line read from standard input
    /// (when `readInput`), until the process is ended, input ends or standard
    /// output's reader has gone (then it returns).
    package func follow(beat: @escaping () -> Void, readInput: Bool, line: @escaping (String) -> Void) {
        let loop = g_main_loop_new(nil, 0)
        let state = FollowState(loop: loop, beat: beat, line: line)
        let raw = Unmanaged.passRetained(state).toOpaque()
        defer { Unmanaged<FollowState>.fromOpaque(raw).release() }
        state.armBeat(raw)
        if readInput {
            g_unix_fd_add(0, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue), { _, _, raw in
                Unmanaged<FollowState>.fromOpaque(raw.unsafelyUnwrapped).takeUnretainedValue().readInput() ? 1 : 0
            }, raw)
        }
        let watch = Self.quitsWhenOutputCloses(loop)
        g_main_loop_run(loop)
        g_source_remove(watch)
        g_main_loop_unref(loop)
    }
}

/// What `follow(beat:…)` keeps while it runs (the main loop's thread only).
private final class FollowState {
    let loop: OpaquePointer?
    let beat: () -> Void
    let line: (String) -> Void
    private var pending: [UInt8] = []

    init(loop: OpaquePointer?, beat: @escaping () -> Void, line: @escaping (String) -> Void) {
        self.loop = loop
        self.beat = beat
        self.line = line
    }

    /// A timeout at the next whole second (a few ms after it, never before).
    func armBeat(_ raw: UnsafeMutableRawPointer) {
        let now = Clocks.realtime()
        let wait = Nanos.perSecond - now % Nanos.perSecond
        g_timeout_add_full(G_PRIORITY_DEFAULT, guint(wait / 1_000_000 + 2), { raw in
            let state = Unmanaged<FollowState>.fromOpaque(raw.unsafelyUnwrapped).takeUnretainedValue()
            state.beat()
            state.armBeat(raw.unsafelyUnwrapped)
            return 0  // G_SOURCE_REMOVE: armed again for the next second
        }, raw, nil)
    }

    /// Reads what standard input has; each whole line to `line`. False
    /// (stop watching) at its end, which also ends the loop.
    func readInput() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(0, &buffer, buffer.count)
        guard count > 0 else {
            g_main_loop_quit(loop)
            return false
        }
        pending += buffer[..<count]
        while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
            line(String(decoding: pending[..<end], as: UTF8.self))
            pending.removeSubrange(...end)
        }
        return true
    }
}

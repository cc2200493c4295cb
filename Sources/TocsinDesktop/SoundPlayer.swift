import CCanberra
import Glibc
import TocsinBase

/// Plays alarm sounds through libcanberra on a thread of its own:
/// `ca_context_open` can block for 30 s against a frozen sound server, and
/// must block neither the engine nor the alerts.
///
/// A sound server that is meant to be there (`soundServerExpected`) but is
/// not, or not ready (right after a resume its sinks are often being
/// re-created), is tried again with backoff (0.25 s, doubling to 4 s) for
/// `retryFor` (30 s) after the sound was asked for; only then does the
/// alarm fall back to the terminal's bell and report the failure. A theme
/// that has none of the sounds is not retried.
///
/// `@unchecked Sendable`: `commands` is guarded by `lock`; everything else is
/// touched only on the sound thread.
final class SoundPlayer: @unchecked Sendable {
    typealias Reporter = @Sendable (NotifierReport.Kind, AlertKey, String, TocsinNotifyFailure?) -> Void

    enum Command {
        case play(AlertKey, chain: [String], role: String, repeatFor: Duration?)
        case stop(AlertKey)
        case finished(playID: UInt32, code: Int32)
        case probe(@Sendable (String) -> Void)
        case quit
    }

    /// How long a sound is tried again while the sound server is missing:
    /// 30 s, or `$TOCSIN_NOTIFY_SOUND_RETRY_SECONDS` (0 to 300) as the
    /// process started.
    let retryFor: Int64 = {
        guard let raw = getenv("TOCSIN_NOTIFY_SOUND_RETRY_SECONDS"), let seconds = Int64(String(cString: raw)),
              (0...300).contains(seconds) else { return 30 * Nanos.perSecond }
        return seconds * Nanos.perSecond
    }()
    private static var firstRetry: Int64 { 250_000_000 }
    private static var longestRetry: Int64 { 4 * Nanos.perSecond }

    /// A sound waiting for the sound server.
    private struct Waiting {
        var chain: [String]
        var role: String
        var repeatFor: Duration?
        /// Monotonic ns: when it was asked for, and when it is next tried.
        var asked: Int64
        var nextTry: Int64
        var delay: Int64
        var reason: String
    }

    private struct Playback {
        var sound: String
        var role: String
        var playID: UInt32
        /// Monotonic ns until which the sound repeats; nil: once.
        var repeatUntil: Int64?
    }

    private let lock = TocsinLock()
    private var commands: [Command] = []
    private var thread = pthread_t()
    /// The notifier's callbacks, called on the sound thread only, and
    /// replaced by no-ops once it has stopped (they hold the notifier).
    private var report: Reporter
    /// Called once per `play`, when that alert's sound is over.
    private var done: @Sendable (AlertKey) -> Void
    /// Called when a repeating sound played for all its time, unstopped
    /// (before `done`).
    private var ranOut: @Sendable (AlertKey) -> Void

    // Sound thread only:
    private var context: OpaquePointer?
    private var playbacks: [AlertKey: Playback] = [:]
    private var waiting: [AlertKey: Waiting] = [:]
    private var nextPlayID: UInt32 = 1

    init(report: @escaping Reporter, done: @escaping @Sendable (AlertKey) -> Void,
         ranOut: @escaping @Sendable (AlertKey) -> Void) throws(TocsinNotifyFailure) {
        self.report = report
        self.done = done
        self.ranOut = ranOut
        let me = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            Unmanaged<SoundPlayer>.fromOpaque(raw.unsafelyUnwrapped).takeRetainedValue().run()
            return nil
        }, me)
        guard status == 0 else {
            Unmanaged<SoundPlayer>.fromOpaque(me).release()
            throw TocsinNotifyFailure(.io, "cannot start the notifier's sound thread")
        }
    }

    /// Queues a command; thread-safe, never blocks on sound.
    func post(_ command: Command) {
        lock.lock()
        commands.append(command)
        lock.broadcast()
        lock.unlock()
    }

    /// Stops every sound, joins the thread and drops the callbacks.
    func shutDown() {
        post(.quit)
        pthread_join(thread, nil)
        report = { _, _, _, _ in }
        done = { _ in }
        ranOut = { _ in }
    }

    private func run() {
        while true {
            lock.lock()
            while commands.isEmpty {
                let due = waiting.values.map { $0.nextTry } + playbacks.values.compactMap { $0.repeatUntil }
                guard let next = due.min() else {
                    lock.wait()
                    continue
                }
                let left = next - Clocks.monotonic()
                if left <= 0 || !lock.wait(nanoseconds: left) { break }  // a retry or a ring's end is due
            }
            let command = commands.isEmpty ? nil : commands.removeFirst()
            lock.unlock()
            guard let command else {
                retryWaiting()
                endRingsDue()
                continue
            }
            switch command {
            case .play(let key, let chain, let role, let repeatFor):
                stop(key)
                let now = Clocks.monotonic()
                start(key, Waiting(chain: chain, role: role, repeatFor: repeatFor, asked: now, nextTry: now,
                                   delay: Self.firstRetry, reason: ""))
            case .stop(let key):
                stop(key)
            case .finished(let playID, let code):
                finished(playID: playID, code: code)
            case .probe(let answer):
                answer(openContext().map { "sound server: not available (\($0.reason))" } ?? "sound server: ok (libcanberra)")
            case .quit:
                for key in Array(playbacks.keys) + Array(waiting.keys) { stop(key) }
                if let context { ca_context_destroy(context) }
                return
            }
        }
    }

    /// Opens the canberra context (kept once open); the failure, if any:
    /// a failure is not kept, the next call tries again.
    private func openContext() -> TocsinNotifyFailure? {
        if context != nil { return nil }
        var created: OpaquePointer?
        var code = ca_context_create(&created)
        if code == CA_SUCCESS, let created {
            var props: OpaquePointer?
            ca_proplist_create(&props)
            ca_proplist_sets(props, CA_PROP_APPLICATION_NAME, "Tocsin")
            ca_proplist_sets(props, CA_PROP_APPLICATION_ID, "tocsin")
            ca_context_change_props_full(created, props)
            ca_proplist_destroy(props)
            code = ca_context_open(created)
            if code == CA_SUCCESS {
                context = created
                return nil
            }
            ca_context_destroy(created)
        }
        return TocsinNotifyFailure(.unavailable, "no sound server: \(String(cString: ca_strerror(code)))")
    }

    /// Plays the first sound of `request.chain` that exists. Without a
    /// sound server it waits (`retryWaiting`); with none of the sounds, or
    /// once `retryFor` has passed, the terminal's bell.
    private func start(_ key: AlertKey, _ request: Waiting) {
        var request = request
        var serverTrouble = true
        if let failure = openContext() {
            request.reason = failure.reason
        } else {
            serverTrouble = false
            for sound in request.chain {
                let (playID, code) = play(sound, role: request.role)
                if playID != 0 {
                    let now = Clocks.monotonic()
                    playbacks[key] = Playback(sound: sound, role: request.role, playID: playID,
                                              repeatUntil: request.repeatFor.map { now + $0.nanoseconds })
                    let waited = now - request.asked
                    report(.soundPlayed, key, waited < Self.firstRetry ? sound
                        : "\(sound) (after \(waited / Nanos.perSecond) s: \(request.reason))", nil)
                    return
                }
                if code != Int32(CA_ERROR_NOTFOUND) {  // the server went away, or is not ready
                    serverTrouble = true
                    request.reason = "the sound server refused: \(String(cString: ca_strerror(code)))"
                    if let context { ca_context_destroy(context) }
                    context = nil
                    break
                }
            }
        }
        let now = Clocks.monotonic()
        if serverTrouble, now - request.asked < retryFor, Self.soundServerExpected() {
            request.nextTry = now + request.delay
            request.delay = min(request.delay * 2, Self.longestRetry)
            waiting[key] = request
            return
        }
        let waited = now - request.asked >= Self.firstRetry
        let reason = !serverTrouble ? "no sound in the theme: \(request.chain.joined(separator: ", "))"
            : waited ? request.reason + " (tried for \(retryFor / Nanos.perSecond) s)" : request.reason
        if ringTerminalBell() {
            report(.soundPlayed, key, "terminal-bell", TocsinNotifyFailure(.unavailable, reason))
        } else {
            report(.soundFailed, key, reason + "; no terminal for a bell", TocsinNotifyFailure(.unavailable, reason))
        }
        done(key)
    }

    /// True if a sound server is meant to be there: `PULSE_SERVER` is set,
    /// or PulseAudio's or PipeWire's socket is in the runtime folder. Where
    /// none is (a server, an ssh session) a missing server is not waited
    /// for: the bell at once, as before.
    static func soundServerExpected() -> Bool {
        if let server = getenv("PULSE_SERVER"), server.pointee != 0 { return true }
        let runtime = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? "/run/user/\(getuid())"
        return access(runtime + "/pulse/native", F_OK) == 0 || access(runtime + "/pipewire-0", F_OK) == 0
    }

    /// Tries again the sounds whose retry is due.
    private func retryWaiting() {
        let now = Clocks.monotonic()
        for (key, request) in waiting where request.nextTry <= now {
            waiting[key] = nil
            start(key, request)
        }
    }

    /// Cuts the repeating sounds whose ring time is up (mid-play: a ring
    /// lasts what it was given, not up to the end of a long sound).
    private func endRingsDue() {
        let now = Clocks.monotonic()
        for (key, playback) in playbacks {
            guard let until = playback.repeatUntil, until <= now else { continue }
            playbacks[key] = nil
            if let context { ca_context_cancel(context, playback.playID) }
            ranOut(key)
            done(key)
        }
    }

    /// Starts one sound; its play id (0 if it could not start) and
    /// libcanberra's code.
    private func play(_ sound: String, role: String) -> (UInt32, Int32) {
        guard let context else { return (0, Int32(CA_ERROR_STATE)) }
        var props: OpaquePointer?
        ca_proplist_create(&props)
        defer { ca_proplist_destroy(props) }
        ca_proplist_sets(props, CA_PROP_EVENT_ID, sound)
        ca_proplist_sets(props, CA_PROP_MEDIA_ROLE, role)
        ca_proplist_sets(props, CA_PROP_EVENT_DESCRIPTION, "Timer finished")
        let playID = nextPlayID
        nextPlayID = nextPlayID == UInt32.max ? 1 : nextPlayID + 1
        let me = Unmanaged.passUnretained(self).toOpaque()
        // Called on libpulse's own thread: only hand the news over.
        let code = ca_context_play_full(context, playID, props, { _, playID, code, raw in
            Unmanaged<SoundPlayer>.fromOpaque(raw.unsafelyUnwrapped).takeUnretainedValue()
                .post(.finished(playID: playID, code: code))
        }, me)
        return (code == CA_SUCCESS ? playID : 0, code)
    }

    /// A play ended: a repeating sound starts again at once (no gap but
    /// the sound's own silence) until its time is up.
    private func finished(playID: UInt32, code: Int32) {
        guard let (key, playback) = playbacks.first(where: { $0.value.playID == playID }) else { return }
        if code == CA_SUCCESS, let until = playback.repeatUntil {
            if Clocks.monotonic() < until {
                let (again, _) = play(playback.sound, role: playback.role)
                if again != 0 {
                    playbacks[key]?.playID = again
                    return
                }
            } else {
                ranOut(key)  // rang all its time: nobody stopped it
            }
        }
        playbacks[key] = nil
        done(key)
    }

    private func stop(_ key: AlertKey) {
        if waiting.removeValue(forKey: key) != nil { return done(key) }
        guard let playback = playbacks.removeValue(forKey: key) else { return }
        if let context { ca_context_cancel(context, playback.playID) }
        done(key)
    }

    /// BEL on the controlling terminal, if the process has one.
    private func ringTerminalBell() -> Bool {
        let fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "\u{7}", 1) == 1
    }
}

// Over 300 lines: one thread's state machine (waiting for the sound server, ringing, fading, retrying), whose state stays private to that thread.
import CCanberra
import CNotify
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
        case play(AlertKey, chain: [String], role: String, repeatFor: Duration?, tone: Tone = Tone())
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

    /// An alarm's own file, volume and fade.
    struct Tone: Sendable {
        var file: String?
        /// dB.
        var volume: Double = 0
        /// Nanoseconds over which the volume rises to `volume` (0: none).
        var fade: Int64 = 0
        /// An alarm that pauses the media players while it rings.
        var pausesMedia = false
        /// What the sound is for, as mixers and screen readers name it,
        /// written by the caller in its language (this thread keeps the
        /// process's locale); empty: "Timer finished".
        var description = ""
    }

    /// How far below its volume a fading ring starts (dB).
    static let fadeDepth = 30.0
    /// How often a fading ring is replayed louder (at most).
    static let fadeStep: Int64 = Nanos.perSecond

    /// A sound waiting for the sound server.
    private struct Waiting {
        var chain: [String]
        var role: String
        var repeatFor: Duration?
        var tone: Tone
        /// Monotonic ns: when it was asked for, and when it is next tried.
        var asked: Int64
        var nextTry: Int64
        var delay: Int64
        var reason: String
    }

    private struct Playback {
        /// An event id, or the file (`isFile`).
        var sound: String
        var isFile: Bool
        var role: String
        var playID: UInt32
        /// Monotonic ns until which the sound repeats; nil: once.
        var repeatUntil: Int64?
        var tone: Tone
        /// Monotonic ns the ring started at, and when it is next replayed
        /// louder (while fading).
        var started: Int64
        var nextStep: Int64?
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
    /// Called as a sound whose tone `pausesMedia` starts (true) and is over
    /// (false), in that order, once each.
    private var media: @Sendable (AlertKey, Bool) -> Void

    // Sound thread only:
    private var context: OpaquePointer?
    private var playbacks: [AlertKey: Playback] = [:]
    private var waiting: [AlertKey: Waiting] = [:]
    private var nextPlayID: UInt32 = 1

    init(report: @escaping Reporter, done: @escaping @Sendable (AlertKey) -> Void,
         ranOut: @escaping @Sendable (AlertKey) -> Void,
         media: @escaping @Sendable (AlertKey, Bool) -> Void) throws(TocsinNotifyFailure) {
        self.report = report
        self.done = done
        self.ranOut = ranOut
        self.media = media
        let me = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            tocsin_name_thread("tocsin-sound")
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
        lock.withLock {
            commands.append(command)
            lock.broadcast()
        }
    }

    /// Stops every sound, joins the thread and drops the callbacks.
    func shutDown() {
        post(.quit)
        pthread_join(thread, nil)
        report = { _, _, _, _ in }
        done = { _ in }
        ranOut = { _ in }
        media = { _, _ in }
    }

    private func run() {
        while true {
            let command = lock.withLock { () -> Command? in
                while commands.isEmpty {
                    let due = waiting.values.map { $0.nextTry } + playbacks.values.compactMap { $0.repeatUntil }
                        + playbacks.values.compactMap { $0.nextStep }
                    guard let next = due.min() else {
                        lock.wait()
                        continue
                    }
                    let left = next - Clocks.monotonic()
                    if left <= 0 || !lock.wait(nanoseconds: left) { break }  // a retry or a ring's end is due
                }
                return commands.isEmpty ? nil : commands.removeFirst()
            }
            guard let command else {
                retryWaiting()
                endRingsDue()
                stepFades()
                continue
            }
            switch command {
            case .play(let key, let chain, let role, let repeatFor, let tone):
                stop(key)
                if tone.pausesMedia { media(key, true) }
                let now = Clocks.monotonic()
                start(key, Waiting(chain: chain, role: role, repeatFor: repeatFor, tone: tone, asked: now, nextTry: now,
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
            var instead: String?  // why the alarm's own file did not play
            let sources = (request.tone.file.map { [($0, true)] } ?? []) + request.chain.map { ($0, false) }
            for (sound, isFile) in sources {
                let now = Clocks.monotonic()
                let (playID, code) = play(sound, isFile: isFile, role: request.role, tone: request.tone, at: 0)
                if playID != 0 {
                    let fading = request.tone.fade > 0
                    playbacks[key] = Playback(sound: sound, isFile: isFile, role: request.role, playID: playID,
                                              repeatUntil: request.repeatFor.map { now + $0.nanoseconds }, tone: request.tone,
                                              started: now, nextStep: fading ? now + Self.step(request.tone) : nil)
                    let waited = now - request.asked
                    var detail = waited < Self.firstRetry ? sound
                        : "\(sound) (after \(waited / Nanos.perSecond) s: \(request.reason))"
                    if let instead { detail += " (instead of \(instead))" }
                    report(.soundPlayed, key, detail, nil)
                    return
                }
                if isFile && (code == Int32(CA_ERROR_NOTFOUND) || code == Int32(CA_ERROR_CORRUPT)
                              || code == Int32(CA_ERROR_NOTSUPPORTED) || code == Int32(CA_ERROR_ACCESS)
                              || code == Int32(CA_ERROR_IO)) {
                    instead = "\(sound): \(String(cString: ca_strerror(code)))"  // the theme's sound rings
                    continue
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
        over(key, request.tone)
    }

    /// True if a sound server is meant to be there: `PULSE_SERVER` is set,
    /// or PulseAudio's or PipeWire's socket is where libpulse looks for it
    /// (`PULSE_RUNTIME_PATH`, else `XDG_RUNTIME_DIR/pulse`). Where none is (a
    /// server, an ssh session, a process without `XDG_RUNTIME_DIR`: libpulse
    /// then never looks in /run/user, so a socket there is none of its
    /// business) a missing server is not waited for: the bell at once.
    static func soundServerExpected() -> Bool {
        func variable(_ name: String) -> String? {
            guard let value = getenv(name), value.pointee != 0 else { return nil }
            return String(cString: value)
        }
        if variable("PULSE_SERVER") != nil { return true }
        if let pulse = variable("PULSE_RUNTIME_PATH"), access(pulse + "/native", F_OK) == 0 { return true }
        guard let runtime = variable("XDG_RUNTIME_DIR") else { return false }
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
            over(key, playback.tone)
        }
    }

    /// The volume (dB) of a ring `elapsed` ns after it started: rising
    /// from `fadeDepth` below the tone's volume over its fade.
    static func volume(_ tone: Tone, at elapsed: Int64) -> Double {
        guard tone.fade > 0, elapsed < tone.fade else { return tone.volume }
        return tone.volume - fadeDepth * (1 - Double(elapsed) / Double(tone.fade))
    }

    /// How often a fading ring is replayed louder: a tenth of the fade, at
    /// least a second.
    static func step(_ tone: Tone) -> Int64 { max(fadeStep, tone.fade / 10) }

    /// Replays the fading rings whose next step is due, louder.
    private func stepFades() {
        let now = Clocks.monotonic()
        for (key, playback) in playbacks {
            guard let step = playback.nextStep, step <= now else { continue }
            let elapsed = now - playback.started
            let (again, _) = play(playback.sound, isFile: playback.isFile, role: playback.role,
                                  tone: playback.tone, at: elapsed)
            guard again != 0 else { continue }  // the current play goes on
            if let context { ca_context_cancel(context, playback.playID) }
            playbacks[key]?.playID = again
            playbacks[key]?.nextStep = elapsed >= playback.tone.fade ? nil : now + Self.step(playback.tone)
        }
    }

    /// Starts one sound (an event id, or a file) at its tone's volume
    /// `elapsed` ns into its fade; its play id (0 if it could not start)
    /// and libcanberra's code.
    private func play(_ sound: String, isFile: Bool, role: String, tone: Tone, at elapsed: Int64) -> (UInt32, Int32) {
        guard let context else { return (0, Int32(CA_ERROR_STATE)) }
        let volume = Self.volume(tone, at: elapsed)
        var props: OpaquePointer?
        ca_proplist_create(&props)
        defer { ca_proplist_destroy(props) }
        ca_proplist_sets(props, isFile ? CA_PROP_MEDIA_FILENAME : CA_PROP_EVENT_ID, sound)
        if volume != 0 { ca_proplist_sets(props, CA_PROP_CANBERRA_VOLUME, Self.decibels(volume)) }
        ca_proplist_sets(props, CA_PROP_MEDIA_ROLE, role)
        ca_proplist_sets(props, CA_PROP_EVENT_DESCRIPTION, tone.description.isEmpty ? tr("Timer finished") : tone.description)
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
            let now = Clocks.monotonic()
            if now < until {
                let (again, _) = play(playback.sound, isFile: playback.isFile, role: playback.role,
                                      tone: playback.tone, at: now - playback.started)
                if again != 0 {
                    playbacks[key]?.playID = again
                    return
                }
            } else {
                ranOut(key)  // rang all its time: nobody stopped it
            }
        }
        playbacks[key] = nil
        over(key, playback.tone)
    }

    private func stop(_ key: AlertKey) {
        if let request = waiting.removeValue(forKey: key) { return over(key, request.tone) }
        guard let playback = playbacks.removeValue(forKey: key) else { return }
        if let context { ca_context_cancel(context, playback.playID) }
        over(key, playback.tone)
    }

    /// A sound of `key` is over, whichever way.
    private func over(_ key: AlertKey, _ tone: Tone) {
        if tone.pausesMedia { media(key, false) }
        done(key)
    }

    /// "-20.00": dB as canberra.volume takes it (no locale, no Foundation).
    static func decibels(_ value: Double) -> String {
        let hundredths = Int((abs(value) * 100).rounded())
        let fraction = hundredths % 100
        return (value < 0 && hundredths > 0 ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }

    /// BEL on the controlling terminal, if the process has one.
    private func ringTerminalBell() -> Bool {
        let fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "\u{7}", 1) == 1
    }
}

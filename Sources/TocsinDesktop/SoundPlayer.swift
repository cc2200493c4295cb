import CCanberra
import Glibc
import TocsinBase

/// Plays alarm sounds through libcanberra on a thread of its own:
/// `ca_context_open` can block for 30 s against a frozen sound server, and
/// must block neither the engine nor the alerts.
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

    // Sound thread only:
    private var context: OpaquePointer?
    private var openFailure: TocsinNotifyFailure?
    private var attemptedOpen = false
    private var playbacks: [AlertKey: Playback] = [:]
    private var nextPlayID: UInt32 = 1

    init(report: @escaping Reporter, done: @escaping @Sendable (AlertKey) -> Void) throws(TocsinNotifyFailure) {
        self.report = report
        self.done = done
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
    }

    private func run() {
        while true {
            lock.lock()
            while commands.isEmpty { lock.wait() }
            let command = commands.removeFirst()
            lock.unlock()
            switch command {
            case .play(let key, let chain, let role, let repeatFor):
                stop(key)
                start(key, chain: chain, role: role, repeatUntil: repeatFor.map { Clocks.monotonic() + $0.nanoseconds })
            case .stop(let key):
                stop(key)
            case .finished(let playID, let code):
                finished(playID: playID, code: code)
            case .probe(let answer):
                answer(openContext().map { "sound server: not available (\($0.reason))" } ?? "sound server: ok (libcanberra)")
            case .quit:
                for key in Array(playbacks.keys) { stop(key) }
                if let context { ca_context_destroy(context) }
                return
            }
        }
    }

    /// Opens the canberra context once; the failure, if any.
    private func openContext() -> TocsinNotifyFailure? {
        if attemptedOpen { return openFailure }
        attemptedOpen = true
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
        openFailure = TocsinNotifyFailure(.unavailable, "no sound server: \(String(cString: ca_strerror(code)))")
        return openFailure
    }

    /// Plays the first sound of `chain` that exists; the terminal's bell if none.
    private func start(_ key: AlertKey, chain: [String], role: String, repeatUntil: Int64?) {
        var reason = "no sound in the theme: \(chain.joined(separator: ", "))"
        if let failure = openContext() {
            reason = failure.reason
        } else {
            for sound in chain {
                let playID = play(sound, role: role)
                if playID != 0 {
                    playbacks[key] = Playback(sound: sound, role: role, playID: playID, repeatUntil: repeatUntil)
                    report(.soundPlayed, key, sound, nil)
                    return
                }
            }
        }
        if ringTerminalBell() {
            report(.soundPlayed, key, "terminal-bell", TocsinNotifyFailure(.unavailable, reason))
        } else {
            report(.soundFailed, key, reason + "; no terminal for a bell", TocsinNotifyFailure(.unavailable, reason))
        }
        done(key)
    }

    /// Starts one sound; its play id, or 0 if it could not start.
    private func play(_ sound: String, role: String) -> UInt32 {
        guard let context else { return 0 }
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
        return code == CA_SUCCESS ? playID : 0
    }

    private func finished(playID: UInt32, code: Int32) {
        guard let (key, playback) = playbacks.first(where: { $0.value.playID == playID }) else { return }
        if code == CA_SUCCESS, let until = playback.repeatUntil, Clocks.monotonic() < until {
            let again = play(playback.sound, role: playback.role)
            if again != 0 {
                playbacks[key]?.playID = again
                return
            }
        }
        playbacks[key] = nil
        done(key)
    }

    private func stop(_ key: AlertKey) {
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

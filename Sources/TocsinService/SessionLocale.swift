import CGio
import CTocsinSystem
import Glibc
import TocsinBase

/// The language of the service's texts, the session's: a user service can
/// be started before the session's `LANG` reaches the user manager (systemd
/// #42960) and would otherwise speak English all day. Whenever one of its
/// timers starts, changes or rings (and before a notice: `+Looks`), the
/// service asks for the user manager's environment (what `systemctl --user
/// show-environment` prints) if a user manager is on the bus, else keeps its
/// own; the threads that write texts then use that locale (`uselocale`: per
/// thread; `setlocale` is not safe while other threads run).
///
/// The asking never waits: the answer comes back on the loop, which serves
/// calls meanwhile. What must be written in the answer's language (a
/// finish's alert) waits for it (`whenSettled`), a quarter of a second at
/// most; a refusal written meanwhile takes the locale known before.
///
/// Main-loop thread only.
final class SessionLocale {
    /// The locale variables, in gettext's order of precedence.
    static let names = ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LC_TIME", "LANG"]

    /// A thread's locale; made once per choice and never freed (a thread
    /// may still be using the one before).
    final class ThreadLocale: @unchecked Sendable {
        fileprivate let handle: UnsafeMutableRawPointer
        fileprivate init(_ handle: UnsafeMutableRawPointer) { self.handle = handle }
        /// Makes it the calling thread's locale.
        func use() { tocsin_thread_locale_use(handle) }
    }

    /// Which locale each part of the texts comes from.
    struct Choice: Hashable {
        var base: String
        var messages: String
        var time: String
    }

    private var variables: [String: String]
    private var choice: Choice?
    /// Read already in this turn of the loop (`newTurn`): a burst of events
    /// (every alarm re-aimed after a clock change) asks once.
    private var readThisTurn = false
    /// An answer is awaited; what waits for it (`whenSettled`).
    private var asking = false
    private var settled: [() -> Void] = []
    private var made: [Choice: ThreadLocale] = [:]
    /// Called on this thread with the new locale whenever it changes (and
    /// once by `start`); this thread already uses it.
    var onChange: (ThreadLocale) -> Void = { _ in }
    /// Nanoseconds until the next text no event comes before, of those
    /// more than the given nanoseconds away (`SessionLocale+Looks`).
    var nextUnprompted: (Int64) -> Int64? = { _ in nil }
    /// The bus connection to read the user manager's environment on.
    var connection: () -> OpaquePointer? = { nil }
    /// The pending look's GLib source (0: none), and its planning.
    var look: guint = 0
    lazy var lookPlanned = IdleWork(priority: G_PRIORITY_LOW) { [unowned self] in armLook() }

    /// `environment`: the service's own, as it was started.
    init(environment: [String: String]) {
        variables = environment.filter { Self.names.contains($0.key) }
    }

    /// Uses the service's own locale until the session says otherwise.
    func start() { settle() }

    /// The engine's batch of events has been handled: the next event reads again.
    func newTurn() { readThisTurn = false }

    /// Asks for the user manager's environment (never starting one; a
    /// quarter of a second at most; once per turn, and not while an answer
    /// is awaited) and follows it, once it comes, if it names a locale.
    func refresh(_ connection: OpaquePointer?) {
        guard !readThisTurn, !asking, let connection else { return }
        readThisTurn = true
        asking = true
        Self.askManagerEnvironment(connection) { [self] environment in
            asking = false
            if let environment { follow(environment) }
            let waiting = settled
            settled = []
            for then in waiting { then() }
        }
    }

    /// Runs `then` once the locale asked for is in use (at once if none is
    /// awaited).
    func whenSettled(_ then: @escaping () -> Void) {
        guard asking else { return then() }
        settled.append(then)
    }

    private func follow(_ environment: [String: String]) {
        let named = environment.filter { Self.names.contains($0.key) && !$0.value.isEmpty }
        // A user manager that has not been told the locale knows less than we do.
        guard named.keys.contains(where: { $0 != "LANGUAGE" }) else { return }
        variables = named
        settle()
    }

    private func settle() {
        let next = Self.choice(variables, catalogs: Self.hasCatalog, installed: Self.isInstalled)
        guard next != choice else { return }
        choice = next
        let locale = made[next] ?? ThreadLocale(tocsin_thread_locale_new(next.base, next.messages, next.time))
        made[next] = locale
        locale.use()
        onChange(locale)
    }
}

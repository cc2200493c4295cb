import CGio
import CTocsinService
import Glibc
import Tocsin
import TocsinNotify

/// `tocsin service`: one engine (polled) and the bus on a GLib main loop on
/// this thread, so every call, event and save happens on one thread. It
/// sleeps in `poll` while nothing is due: no wakeups (but a look at the
/// session's locale before an alarm's notice or a warning, `SessionLocale`,
/// and systemd's watchdog, when it asks for one). The loop's thread never
/// waits on anyone: every bus call it makes is asynchronous. It exits by
/// itself after `idleExit` seconds with no timer running, suspended or
/// waiting to start, and no client watching (`Watch`); SIGTERM, SIGHUP and
/// SIGINT end it at once, and within `signalGrace` whatever the loop is
/// doing (they are waited for on a thread of their own). Running timers are in
/// the state file as running either way: they keep counting while it is
/// gone, and the next call (D-Bus activation) carries them on.
package final class ServiceMain: @unchecked Sendable {
    package struct Options: Sendable {
        /// Seconds idle before exiting; nil: never.
        package var idleExit: Double? = 60
        /// The state file; nil: `ServiceStore.standard()`.
        package var statePath: String?
        /// Seconds after which a finish found on restart gets a quiet alert.
        package var grace: Double = 3600
        /// No alerts or sounds (tests, headless use).
        package var quiet = false
        /// Live notifications shown at once (`Notifier.Options.liveLimit`).
        package var liveLimit = 3
        /// Timers kept at once (`TimerService.Limits.timers`).
        package var maxTimers = TimerService.Limits().timers
        /// Seconds a timer's command or a hook may run before it is stopped.
        package var commandLimit = 60.0

        package init() {}
    }

    /// How long a signal waits for the loop to end the service cleanly
    /// before it ends the process (ms): what was acknowledged is saved.
    static let signalGrace: Int32 = 900

    private let options: Options
    private let loop: OpaquePointer
    private var status: Int32 = 0
    private var idleSource: guint = 0
    /// Looks at idleness once the loop is idle (`checkIdle`).
    private lazy var idleCheck = IdleWork(priority: G_PRIORITY_LOW) { [unowned self] in checkIdleNow() }
    private var service: TimerService?
    private var bus: ServiceBus?
    private var sessionLocale: SessionLocale?
    /// The object is on the bus and the name ours.
    private var ready = false

    package init(options: Options) {
        self.options = options
        loop = g_main_loop_new(nil, 0)
    }

    /// Runs until idle, a signal, or the bus name is lost; the exit status.
    package func run() -> Int32 {
        // One user's timers: never on the machine's bus.
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }),
           address.contains("system_bus_socket") {
            logLine("refusing to run on the system bus (\(address)): the service is per user")
            return 1
        }
        // Its wake timers' capability is its own: not the commands' it runs.
        _ = tocsin_service_drop_ambient_capabilities()
        // Before any thread starts (GDBus's, the notifier's), so that they
        // all leave the signals to the thread that waits for them. It holds
        // the loop (a reference of its own: it may run as the process
        // ends) and quits it now and, for a loop not running yet, once it runs.
        _ = tocsin_service_handle_signals({ loop in
            g_main_context_invoke_full(nil, G_PRIORITY_HIGH, { loop in
                g_main_loop_quit(OpaquePointer(loop))
                return 0  // G_SOURCE_REMOVE
            }, loop, nil)
            g_main_loop_quit(OpaquePointer(loop))
        }, UnsafeMutableRawPointer(g_main_loop_ref(loop)), Self.signalGrace)
        // Texts follow the session's locale (`SessionLocale`), LANGUAGE too:
        // gettext reads it from the environment, which would outrank the
        // session's. Unset before any thread runs.
        let sessionLocale = SessionLocale(environment: Self.localeVariables())
        self.sessionLocale = sessionLocale
        unsetenv("LANGUAGE")
        // The session bus before the lock: a service that cannot run writes nothing.
        var error: UnsafeMutablePointer<GError>?
        guard let session = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            logLine(ServiceBus.noSessionBus)
            g_clear_error(&error)
            return 1
        }
        defer { g_object_unref(UnsafeMutableRawPointer(session)) }  // (the shared connection the name is owned on)
        let store = options.statePath.map(ServiceStore.init(path:)) ?? ServiceStore.standard()
        if let reason = store.lock() {
            logLine(reason)
            return 1
        }
        let engine: TimerEngine
        do {
            engine = try TimerEngine(delivery: .polled)
        } catch {
            logLine("cannot make an engine: \(error)")
            return 1
        }
        let notifier = options.quiet ? nil : try? Notifier(options: .init(liveLimit: options.liveLimit))
        sessionLocale.onChange = { locale in notifier?.core.runOnThread { locale.use() } }
        sessionLocale.start()
        let service = TimerService(engine: engine, store: store, notifier: notifier)
        service.grace = options.grace
        service.limits.timers = options.maxTimers
        service.scripts.limits.time = options.commandLimit
        service.hooksFolder = TimerService.standardHooksFolder()
        self.service = service
        let bus = ServiceBus(service: service)
        self.bus = bus
        bus.onLost = { [unowned self] reason in
            logLine(reason)
            status = 1
            g_main_loop_quit(loop)
        }
        bus.afterCall = { [unowned self] in
            checkIdle()
            sessionLocale.planLook()
        }
        service.localeMayChange = { [unowned bus] in
            sessionLocale.refresh(bus.connection)
            sessionLocale.planLook()  // (the times of notices and warnings may have moved)
        }
        service.afterLocale = { then in sessionLocale.whenSettled(then) }
        sessionLocale.connection = { [unowned bus] in bus.connection }
        sessionLocale.nextUnprompted = { [unowned service] after in service.nextUnpromptedText(after: after) }
        service.idleMayChange = { [unowned self] in checkIdle() }
        // Events wait until the object is on the bus: the FINISH of a timer
        // that ran out while the service was away must reach the clients.
        bus.onReady = { [unowned self] in
            ready = true
            watchEngine()
            service.announceUnannounced()
            service.startScripts()
            _ = tocsin_service_notify("READY=1")
            stallForTests()
        }
        keepWatchdogFed()
        bus.own()
        checkIdle()
        g_main_loop_run(loop)
        _ = tocsin_service_notify("STOPPING=1")
        if ready {  // the journal folded in (every change is in it already)
            do throws(ServiceError) { try service.snapshot() } catch { logLine(error.message) }
        }
        // Nothing is written from here on (the loop that runs the notifier's
        // reports has stopped): a service activated once the name is free
        // need not wait for this one's notifications to close.
        store.unlock()
        bus.close()
        notifier?.close()
        engine.close()
        return status
    }

    /// The locale variables of the service's environment.
    private static func localeVariables() -> [String: String] {
        var variables: [String: String] = [:]
        for name in SessionLocale.names { variables[name] = getenv(name).map { String(cString: $0) } }
        return variables
    }

    /// Delivers the engine's events on this loop from now on.
    private func watchEngine() {
        guard let fd = try? service?.engine.pollFileDescriptor() else { return }
        g_unix_fd_add(fd, G_IO_IN, { _, _, me in
            let main = Unmanaged<ServiceMain>.fromOpaque(me.unsafelyUnwrapped).takeUnretainedValue()
            // The events' records are synced once, then their finishes announced.
            main.service?.deliverEvents { _ = try? main.service?.engine.dispatch() }
            main.sessionLocale?.newTurn()
            main.checkIdle()
            return 1  // G_SOURCE_CONTINUE
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Tells systemd the loop turns, at half the watchdog's interval, if it
    /// asks for that (`WatchdogSec=` in the unit): a loop that stalls stops
    /// telling, and systemd restarts the service (its journal holds every
    /// change it acknowledged).
    private func keepWatchdogFed() {
        let interval = tocsin_service_watchdog_usec()
        guard interval > 0 else { return }
        _ = tocsin_service_notify("WATCHDOG=1")
        g_timeout_add_full(G_PRIORITY_HIGH, guint(clamping: max(1, interval / 2000)), { _ in
            _ = tocsin_service_notify("WATCHDOG=1")
            return 1  // G_SOURCE_CONTINUE
        }, nil, nil)
    }

    /// For tests of the watchdog and of signals: `TOCSIN_SERVICE_TEST_STALL`
    /// seconds after it is ready, the loop stops turning for good (as a bug
    /// that never returns would).
    private func stallForTests() {
        guard let text = getenv("TOCSIN_SERVICE_TEST_STALL").map({ String(cString: $0) }), let seconds = Double(text),
              seconds >= 0, seconds < 86400 else { return }
        g_timeout_add_full(G_PRIORITY_HIGH, guint(seconds * 1000), { _ in
            logLine("TOCSIN_SERVICE_TEST_STALL: the loop stalls now")
            while true { sleep(3600) }
        }, nil, nil)
    }

    /// Nothing runs, waits to start or is watched.
    private var mayExit: Bool { service?.isIdle == true && bus?.isWatched != true && bus?.hasCallsUnderWay != true }

    /// Looks at idleness once the loop is idle: a burst of calls or events
    /// (1,000 finishes announced) asks once; `isIdle` is O(n) in the timers.
    private func checkIdle() {
        if options.idleExit != nil { idleCheck.schedule() }
    }

    /// Starts the idle countdown when nothing runs, stops it when something does.
    private func checkIdleNow() {
        guard let idleExit = options.idleExit else { return }
        if mayExit {
            guard idleSource == 0 else { return }
            let me = Unmanaged.passUnretained(self).toOpaque()
            idleSource = g_timeout_add_full(G_PRIORITY_DEFAULT, guint(max(1, idleExit * 1000)), { me in
                let main = Unmanaged<ServiceMain>.fromOpaque(me.unsafelyUnwrapped).takeUnretainedValue()
                main.idleSource = 0
                if main.mayExit { g_main_loop_quit(main.loop) }
                return 0
            }, me, nil)
        } else if idleSource != 0 {
            g_source_remove(idleSource)
            idleSource = 0
        }
    }
}

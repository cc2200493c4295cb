import CNotify
import Glibc
import Synchronization
import TocsinBase

/// A private GLib main loop on a thread of its own, one per process, shared
/// by its notifiers (each through a `GLibLane`). libnotify's D-Bus replies
/// and button signals are dispatched here, so hosts without a GLib loop (C
/// programs, Python scripts) still get working buttons, and nothing the
/// desktop does can block the engine's delivery thread.
///
/// One thread, because libnotify is one per process: its D-Bus proxy, made
/// on the first notification, delivers every notification's button signals
/// to the thread it was made on, so a second notifier with a thread of its
/// own got none of its buttons once the first had closed. The thread ends
/// with the last notifier, after `notify_uninit` (a later notifier's thread
/// then makes the proxy anew).
///
/// `@unchecked Sendable`: the context and loop are GLib's thread-safe
/// objects; `run` is the only way in.
final class GLibThread: @unchecked Sendable {
    let context: OpaquePointer
    private let loop: OpaquePointer
    private var thread = pthread_t()

    /// The process's thread and how many lanes use it.
    private final class Shared: @unchecked Sendable {
        let lock = TocsinLock()
        var thread: GLibThread?
        var users = 0
    }
    private static let shared = Shared()

    /// The process's thread, started if no notifier runs.
    static func acquire() throws(TocsinNotifyFailure) -> GLibThread {
        try shared.lock.withLock { () throws(TocsinNotifyFailure) -> GLibThread in
            let thread: GLibThread
            if let running = shared.thread { thread = running } else { thread = try GLibThread() }
            shared.thread = thread
            shared.users += 1
            return thread
        }
    }

    /// One user less; the last stops the thread (under the lock: a new one
    /// is not started while libnotify is being uninitialised).
    static func release(_ thread: GLibThread) {
        shared.lock.withLock {
            shared.users -= 1
            guard shared.users == 0 else { return }
            shared.thread = nil
            thread.stop()
        }
    }

    private init() throws(TocsinNotifyFailure) {
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        let me = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            let glib = Unmanaged<GLibThread>.fromOpaque(raw.unsafelyUnwrapped).takeRetainedValue()
            tocsin_name_thread("tocsin-notify")  // in top -H and /proc: whose thread this is
            g_main_context_push_thread_default(glib.context)
            g_main_loop_run(glib.loop)
            g_main_context_pop_thread_default(glib.context)
            return nil
        }, me)
        guard status == 0 else {
            Unmanaged<GLibThread>.fromOpaque(me).release()
            throw TocsinNotifyFailure(.io, "cannot start the notifier's thread")
        }
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Runs `work` on the thread, soon, in the order given; `urgent` work
    /// (an alarm) goes ahead of other work waiting (live updates, closes).
    /// Thread-safe and non-blocking.
    func run(urgent: Bool = false, _ work: @escaping @Sendable () -> Void) {
        g_main_context_invoke_full(context, urgent ? G_PRIORITY_HIGH : G_PRIORITY_DEFAULT, { raw in
            WorkBox.take(raw).takeRetainedValue().work()
            return 0  // G_SOURCE_REMOVE
        }, WorkBox(work).handOver(), nil)
    }

    /// Runs `work` on the thread once, `milliseconds` from now. Returns the
    /// source's id for `cancel`. Thread-safe.
    func after(milliseconds: UInt32, _ work: @escaping @Sendable () -> Void) -> UInt32 {
        let source = g_timeout_source_new(milliseconds)
        g_source_set_callback(source, { raw in
            WorkBox.take(raw).takeUnretainedValue().work()
            return 0  // G_SOURCE_REMOVE: the destroy function releases the box
        }, WorkBox(work).handOver(), { raw in
            WorkBox.take(raw).release()
        })
        let id = g_source_attach(source, context)
        g_source_unref(source)
        return id
    }

    /// Cancels a pending `after`; on the thread only (ids are not reused
    /// while the source exists, and only the thread removes it).
    func cancel(_ id: UInt32) {
        guard id != 0, let source = g_main_context_find_source_by_id(context, id) else { return }
        g_source_destroy(source)
    }

    /// Stops the loop after the work queued so far (libnotify uninitialised
    /// last, on this thread, which its proxy belongs to), and joins the thread.
    private func stop() {
        let loop = UnsafeSendable(loop)
        run {
            if notify_is_initted() != 0 { notify_uninit() }
            g_main_loop_quit(loop.value)
        }
        pthread_join(thread, nil)
    }
}

/// One notifier's share of the process's `GLibThread`: its work and
/// timeouts run there in order, and none of them once it has stopped.
///
/// `@unchecked Sendable`: `open` is atomic; the thread is thread-safe.
final class GLibLane: @unchecked Sendable {
    private let thread: GLibThread
    private let open = Atomic<Bool>(true)

    init() throws(TocsinNotifyFailure) {
        thread = try GLibThread.acquire()
    }

    /// As `GLibThread.run`; nothing once stopped.
    func run(urgent: Bool = false, _ work: @escaping @Sendable () -> Void) {
        thread.run(urgent: urgent) { [self] in
            if open.load(ordering: .acquiring) { work() }
        }
    }

    /// As `GLibThread.after`; nothing once stopped.
    func after(milliseconds: UInt32, _ work: @escaping @Sendable () -> Void) -> UInt32 {
        thread.after(milliseconds: milliseconds) { [self] in
            if open.load(ordering: .acquiring) { work() }
        }
    }

    /// As `GLibThread.cancel`: on the thread only.
    func cancel(_ id: UInt32) {
        thread.cancel(id)
    }

    /// Runs the work queued so far, then stops: work and timeouts still to
    /// come do nothing. Not on the thread itself (it waits for it).
    func stop() {
        let done = Latch()
        thread.run { [self] in
            open.store(false, ordering: .releasing)
            done.open()
        }
        done.wait()
        GLibThread.release(thread)
    }
}

/// Waits once for another thread.
private final class Latch: @unchecked Sendable {
    private let lock = TocsinLock()
    private var isOpen = false

    func open() {
        lock.withLock {
            isOpen = true
            lock.broadcast()
        }
    }

    func wait() {
        lock.withLock {
            while !isOpen { lock.wait() }
        }
    }
}

/// Work handed to the GLib thread through a C pointer.
final class WorkBox: Sendable {
    let work: @Sendable () -> Void
    /// Stored (release) as the box is handed over and loaded (acquire) on
    /// the GLib thread before it is used. GLib's own locks already order
    /// the two, but ThreadSanitizer cannot see them (GLib is not
    /// instrumented) and reported the box's fields as a data race.
    private let handedOver = Atomic<Bool>(false)

    init(_ work: @escaping @Sendable () -> Void) { self.work = work }

    /// The box as GLib's user data, with one reference for its taker.
    func handOver() -> UnsafeMutableRawPointer {
        handedOver.store(true, ordering: .releasing)
        return Unmanaged.passRetained(self).toOpaque()
    }

    /// The box behind GLib's user data, on the GLib thread.
    static func take(_ raw: UnsafeMutableRawPointer?) -> Unmanaged<WorkBox> {
        let box = Unmanaged<WorkBox>.fromOpaque(raw.unsafelyUnwrapped)
        _ = box.takeUnretainedValue().handedOver.load(ordering: .acquiring)
        return box
    }
}

/// A C pointer handed to another thread on purpose (GLib objects that are
/// only touched on the notifier's thread, or are thread-safe).
struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A failure with its status code and reason, as reports carry it.
struct TocsinNotifyFailure: Error, Hashable {
    enum Code { case unavailable, io }
    let code: Code
    let reason: String
    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

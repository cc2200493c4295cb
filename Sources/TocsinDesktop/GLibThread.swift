import CNotify
import Glibc
import Synchronization

/// A private GLib main loop on a thread of its own. libnotify's D-Bus replies
/// and button signals are dispatched here, so hosts without a GLib loop (C
/// programs, Python scripts) still get working buttons, and nothing the
/// desktop does can block the engine's delivery thread.
///
/// `@unchecked Sendable`: the context and loop are GLib's thread-safe
/// objects; `run` is the only way in.
final class GLibThread: @unchecked Sendable {
    let context: OpaquePointer
    private let loop: OpaquePointer
    private var thread = pthread_t()

    init() throws(TocsinNotifyFailure) {
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

    /// Stops the loop after the work queued so far, and joins the thread.
    func stop() {
        let loop = UnsafeSendable(loop)
        run { g_main_loop_quit(loop.value) }
        pthread_join(thread, nil)
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

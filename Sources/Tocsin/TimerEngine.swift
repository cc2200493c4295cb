import CTocsin
import Glibc
import Synchronization
@_exported public import TocsinBase

/// Each engine takes the next tag, so handles of different engines differ
/// (the 24-bit tag wraps after 16 million engines).
private let engineTags = Atomic<UInt32>(0)

/// Many countdown and stopwatch timers driven by one kernel timer.
///
/// Timers are addressed by `TimerID`. Each is started, suspended, resumed,
/// cancelled and restarted on its own; time is kept in nanoseconds and every
/// deadline is computed from running time, so a late delivery never drifts.
///
/// Thread safety: every method may be called from any thread, and from inside
/// a handler. Handlers run where `delivery` says, one at a time, in due-time
/// order (equal due times: in start order), never while the engine's lock is
/// held and never inside the call that caused their event.
///
/// Call `close()` when done: an `.engineThread` engine's thread keeps the
/// engine alive until then.
///
/// The class holds the lock-guarded `EngineCore` (in `LockedCore`), the
/// delivery thread and the delivery rounds; the rules live in the core.
public final class TimerEngine: Sendable {
    /// Where handlers run.
    public enum Delivery: Sendable, Hashable {
        /// On the engine's own thread (C: `TOCSIN_ENGINE_DEFAULT`). Tick and
        /// finish events come at their deadlines; state changes are gathered
        /// and delivered together, about 1 ms after the first of them.
        case engineThread
        /// Inside `dispatch()`, when the host's loop finds
        /// `pollFileDescriptor()` readable (C: `TOCSIN_ENGINE_POLLED`).
        case polled
        /// Inside `advance(by:)`; the real clock is never read
        /// (C: `TOCSIN_ENGINE_MANUAL_CLOCK`).
        case manualClock
    }

    public let delivery: Delivery

    /// The engine's version, "MAJOR.MINOR.PATCH" (the C header's TOCSIN_VERSION_STRING).
    public static var version: String { String(cString: tocsin_version()) }

    package let core: LockedCore
    /// The kernel timer and poll fd; nil on a manual clock. The core holds
    /// the same fds and closes them.
    let kernel: KernelWakeup?

    /// Creates an engine.
    ///
    /// - Throws: `.io` if the kernel timer or the engine thread cannot be
    ///   created, `.outOfMemory` if the first tables cannot be allocated.
    public init(delivery: Delivery = .engineThread) throws(TocsinError) {
        var tag: UInt32
        repeat {
            tag = engineTags.wrappingAdd(1, ordering: .relaxed).newValue & 0xFF_FFFF
        } while tag == 0
        let kernel = delivery == .manualClock ? nil : try KernelWakeup.open()
        let core: EngineCore
        do {
            core = try EngineCore(delivery: delivery, kernel: kernel, tag: tag)
        } catch {
            kernel?.close()
            throw error
        }
        self.delivery = delivery
        self.kernel = kernel
        self.core = LockedCore(core)
        if delivery == .engineThread {
            try startEngineThread()  // on failure deinit closes the fds
        }
    }

    deinit {
        // No other reference is left: nobody else can hold the lock.
        let boxes = core.withLock { core in
            defer { core.batch.deallocate() }
            return core.teardown()
        }
        for box in boxes { box.release() }
        core.deallocate()
    }

    /// The C API's view of this engine: the pointer `tocsin_engine_new` returned.
    var cPointer: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

}

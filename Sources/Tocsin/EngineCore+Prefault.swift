import CTocsinSystem
import Glibc

/// Faulting in table pages ahead of use, on the engine's thread.
///
/// A burst of new timers touches fresh pages of the slot table and the heap
/// (64 bytes a timer: a page every 64 timers), and each first touch is a
/// page fault in which the kernel finds and zeroes a page, about a
/// microsecond here: a quarter of what arming a timer cost its caller. On a
/// DEFAULT engine the engine's thread, idle meanwhile, faults in the next
/// `prefaultWindow` entries of both tables (`MADV_POPULATE_WRITE`, which
/// never changes their contents) while the caller fills the ones before.
/// Engines of fewer than `prefaultStart` timers never ask, nothing is
/// faulted in more than a window past what is used, and nothing while STATE
/// events wait (the thread is needed for those).
extension EngineCore {
    /// Entries faulted in ahead: 256 KB of tables (64 pages, about 80 µs of
    /// the engine thread's time), where a caller arming timers one call each
    /// takes about 300 µs to use them.
    static var prefaultWindow: Int32 { 4096 }
    static var prefaultStart: Int32 { 256 }

    /// `prefaultMark`'s first value: the first look at `prefaultStart`
    /// timers on a DEFAULT engine, none ever in the other modes.
    static func initialPrefaultMark(for delivery: TimerEngine.Delivery) -> Int32 {
        #if TOCSIN_NO_PREFAULT  // bench/variants.sh's comparison build only
        .max
        #else
        delivery == .engineThread ? prefaultStart : .max
        #endif
    }

    /// After a new slot is taken: one comparison, and past the mark (every
    /// 1,024 slots) a request to the engine's thread for the next window.
    @inline(__always)
    mutating func prefaultAhead() {
        guard slots.count >= prefaultMark else { return }
        requestPrefault()
    }

    @inline(never)
    private mutating func requestPrefault() {
        // The thread has not taken the last request yet: look again at the
        // next slot, and ask the moment it has (it then keeps ahead).
        guard !prefaultAsked, let kernel else { return }
        // Asked or not, the next look is a quarter of a window on, when
        // three quarters of this one are still ahead.
        prefaultMark = slots.count &+ Self.prefaultWindow / 4
        // Not while STATE events wait: the thread has them to deliver, and
        // faulting in pages then slowed three-call bursts (the two threads
        // contend for the queue, the slots and the lock already).
        guard pending.isEmpty else { return }
        prefaultAsked = true
        kernel.signal()  // the epoll fd: the engine thread wakes from its wait
        #if DEBUG
        prefaultRequests += 1
        #endif
    }

    /// The kernel cannot fault in ahead (before Linux 5.14): never ask again.
    mutating func stopPrefaulting() {
        prefaultMark = .max
    }

    /// Engine thread, lock held: the table bytes to fault in now, if asked.
    /// The caller faults them in without the lock (a table that grows
    /// meanwhile moves: faulting in the old place then costs nothing but
    /// memory, and the next request covers the new one).
    mutating func takePrefault() -> PrefaultRanges? {
        guard prefaultAsked, let kernel else { return nil }
        prefaultAsked = false
        kernel.clearSignal()
        return PrefaultRanges(
            slots: slots.bytesAfterUsed(Self.prefaultWindow), heap: heap.bytesAfterUsed(Int(Self.prefaultWindow)))
    }
}

/// Parts of the tables not yet in use, to fault in (see `EngineCore.takePrefault`).
struct PrefaultRanges {
    var slots: UnsafeMutableRawBufferPointer
    var heap: UnsafeMutableRawBufferPointer

    /// Faults both in; false when the kernel cannot (before Linux 5.14).
    func faultIn() -> Bool {
        for range in [slots, heap] where range.count > 0 {
            if tocsin_prefault(range.baseAddress, range.count) != 0 && errno == EINVAL { return false }
        }
        return true
    }
}

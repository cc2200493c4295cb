import CTocsin
import Glibc
import Synchronization

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
/// `@unchecked Sendable`: all mutable state below is guarded by `lock`.
public final class TimerEngine: @unchecked Sendable {
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
    let lock = EngineLock()
    /// The kernel timer and poll fd; nil on a manual clock.
    let kernel: KernelWakeup?

    // Guarded by `lock`:
    @exclusivity(unchecked) var slots: SlotTable
    @exclusivity(unchecked) var heap = DeadlineHeap()
    /// Heap entries whose timer was disarmed since they were pushed.
    @exclusivity(unchecked) var staleEntries = 0
    /// STATE events, oldest first, with the time they happened.
    @exclusivity(unchecked) var pending = RingBuffer<PendingEvent>()
    /// Side tables for the few timers that use them, keyed by slot.
    @exclusivity(unchecked) var labels: [Int32: String] = [:]
    @exclusivity(unchecked) var laps: [Int32: LapRecord] = [:]
    @exclusivity(unchecked) var ticks: [Int32: TickSchedule] = [:]
    /// Due times (engine clock) of FINISH events held for restored timers.
    @exclusivity(unchecked) var heldFinishes: [Int32: Int64] = [:]
    @exclusivity(unchecked) var nextCreated: UInt32 = 0
    @exclusivity(unchecked) var observers: [Observer] = []
    @exclusivity(unchecked) var nextObserverID: UInt64 = 1
    @exclusivity(unchecked) var nextSequence: UInt64 = 1
    @exclusivity(unchecked) var manualNow: Int64 = 0
    @exclusivity(unchecked) var closed = false
    @exclusivity(unchecked) var tornDown = false
    /// The thread inside a delivery round, if any.
    @exclusivity(unchecked) var deliveringThread: pthread_t?
    /// The timer whose handler is running now; 0 if none.
    @exclusivity(unchecked) var deliveringHandle: UInt64 = 0
    /// Batched delivery (see TimerEngine+Batch.swift): the entries, touched
    /// only by the delivering thread; whether a batch is out; the epoch the
    /// delivering thread has seen.
    @exclusivity(unchecked) var batch: BatchBuffer
    @exclusivity(unchecked) var batchOut = false
    @exclusivity(unchecked) var batchAcked: UInt64 = 0
    /// Not guarded: written once per batched event, so kept off the cache
    /// lines of the fields every call reads.
    let batchSignals = BatchSignals()
    /// Threads blocked in `lock.wait()`.
    @exclusivity(unchecked) var waiters = 0
    /// The deadline the kernel timer is armed for; `.max` when disarmed.
    @exclusivity(unchecked) var armedDeadline = Int64.max
    #if DEBUG
    /// Times `armKernelTimer` set the kernel timer (a system call each), for tests.
    @exclusivity(unchecked) var kernelTimerArmsByCalls = 0
    /// Times `rearmKernelTimer` moved the kernel timer, for tests.
    @exclusivity(unchecked) var kernelTimerRearms = 0
    #endif
    /// The eventfd has been raised and not cleared.
    @exclusivity(unchecked) var signaled = false
    /// Engine thread: when the kernel timer wakes it for the queued events
    /// (see `signalQueuedEvents`); nil while none wait or a round takes them.
    @exclusivity(unchecked) var queuedEventsDue: Int64?
    @exclusivity(unchecked) var engineThread: pthread_t?
    /// `close()` joins the engine thread (it was not called on it).
    @exclusivity(unchecked) var closerJoinsEngineThread = false

    /// Timers the engine has room for before its tables first grow.
    static let initialCapacity: Int32 = 1024

    /// Creates an engine.
    ///
    /// - Throws: `.io` if the kernel timer or the engine thread cannot be
    ///   created, `.outOfMemory` if the first tables cannot be allocated.
    public init(delivery: Delivery = .engineThread) throws(TocsinError) {
        var tag: UInt32
        repeat {
            tag = engineTags.wrappingAdd(1, ordering: .relaxed).newValue & 0xFF_FFFF
        } while tag == 0
        guard let batch = BatchBuffer(capacity: Self.batchLimit) else { throw .outOfMemory }
        self.delivery = delivery
        self.slots = SlotTable(tag: tag)
        self.batch = batch
        do {
            self.kernel = delivery == .manualClock ? nil : try KernelWakeup.open()
        } catch {
            batch.deallocate()
            throw error
        }
        // A first block reserved, untouched (about 88 KB of address space,
        // faulted in as used), so the first thousand timers never wait for a
        // table to be copied into a larger one.
        guard slots.reserve(Self.initialCapacity), heap.reserve(Int(Self.initialCapacity)),
              pending.reserve(Int(Self.initialCapacity))
        else {
            throw .outOfMemory  // deinit frees what was reserved
        }
        if delivery == .engineThread {
            try startEngineThread()
        }
    }

    deinit {
        let boxes = teardownLocked()
        for box in boxes { box.release() }
        batch.deallocate()
    }

    /// The engine's clock in ns: the boot clock, or the manual time.
    @inline(__always)
    func clockNow() -> Int64 {
        delivery == .manualClock ? manualNow : BootClock.now()
    }

    /// The real clock, read before taking the lock so that the lock is held
    /// for less time; nil on a manual clock, whose time the lock guards. For
    /// start and resume only: suspend and cancel read the clock under the
    /// lock, so a timer's time never reads less than an event delivered.
    @inline(__always)
    func clockBeforeLock() -> Int64? {
        delivery == .manualClock ? nil : BootClock.now()
    }

    /// The C API's view of this engine: the pointer `tocsin_engine_new` returned.
    var cPointer: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    var onDeliveringThread: Bool {
        guard let thread = deliveringThread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// The slot of a live handle. Lock held.
    @inline(__always)
    func slotIndex(of timer: TimerID) throws(TocsinError) -> Int32 {
        guard !closed else { throw .closed }
        guard let index = slots.index(of: timer.rawValue) else { throw .noSuchTimer }
        return index
    }

    /// Runs `body` on a live timer's slot with the lock held.
    func withTimer<Result>(
        _ timer: TimerID,
        _ body: (Int32, UnsafeMutablePointer<TimerSlot>) throws(TocsinError) -> Result
    ) throws(TocsinError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        let index = try slotIndex(of: timer)
        return try body(index, slots[index])
    }

    /// Blocks while another thread runs `handle`'s handler, alone or in a
    /// batch. Lock held.
    func waitWhileDelivering(_ handle: UInt64) {
        guard !onDeliveringThread else { return }
        while deliveringHandle == handle {
            waiters += 1
            lock.wait()
            waiters -= 1
        }
        waitWhileBatchRuns(handle)
    }
}

/// A STATE event waiting for delivery (its remaining time is derived from
/// the timer's duration when it is delivered), or a held FINISH. 24 bytes:
/// the timer is named by slot and generation, its handle's third part being
/// the engine's own tag, so a million queued events take 24 MB, not 32.
struct PendingEvent {
    var slot: Int32
    var generation: UInt16
    var state: TimerState
    var isFinish = false
    var time: Int64
    var elapsed: Int64

    /// The event of timer `index` of `slots`, now in `state`.
    @inline(__always)
    init(of index: Int32, in slots: SlotTable, state: TimerState, time: Int64, elapsed: Int64, isFinish: Bool = false) {
        self.slot = index
        self.generation = slots[index].pointee.generation
        self.state = state
        self.isFinish = isFinish
        self.time = time
        self.elapsed = elapsed
    }

    var kind: TimerEvent.Kind { isFinish ? .finish : .stateChange }

    /// The event to deliver, for its live timer `index` of `slots`. `kind` is
    /// this event's `kind`, passed in by a caller that has read it already
    /// (reading it twice cost the batch claim 8 instructions an event).
    @inline(__always)
    func engineEvent(_ kind: TimerEvent.Kind, of index: Int32, in slots: SlotTable) -> EngineEvent {
        EngineEvent(
            kind: kind, state: state, handle: slots.handle(of: index), elapsed: elapsed,
            remaining: slots[index].pointee.remaining(after: elapsed), tick: 0, due: time)
    }
}

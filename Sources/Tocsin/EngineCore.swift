import CTocsin
import Glibc
import TocsinBase

/// Everything of an engine that its lock guards, as one value with plain
/// `mutating` operations: the timer slots, the deadline heap, the queue of
/// STATE events, the side tables, the delivery bookkeeping and the armed
/// kernel deadline. It never waits and never calls a handler, so its rules
/// can be tested step by step without threads.
///
/// Reached only through `LockedCore.withLock` (the engine) or owned outright
/// (a test). Its operations live by concern: `+Timers` (creating, handlers,
/// ticks, labels), `+Transitions` (start, suspend, resume, cancel, lap),
/// `+Scheduling` (the heap, the kernel timer, the queue), `+Delivery` (what
/// falls due next), `+Batch` (STATE events claimed in batches), `+Restore`
/// (the timer file's contents), `+Clocks` (awake timers, alarms, the
/// simulated machine), `+Calendar` (calendar alarms), `+Leeway` (timers that share wake-ups), `+Wake` (timers
/// that wake the machine), `+Prefault` (table pages faulted in ahead), `+Teardown`.
struct EngineCore {
    let delivery: TimerEngine.Delivery
    /// The kernel timer and poll fd; nil on a manual clock.
    let kernel: KernelWakeup?
    /// Shared with a batch's delivering thread without the lock.
    let batchSignals = BatchSignals()

    var slots: SlotTable
    var heap = DeadlineHeap()
    /// Heap entries whose timer was disarmed since they were pushed.
    var staleEntries = 0
    /// STATE events (and restored FINISH events), oldest first.
    var pending = RingBuffer<PendingEvent>()
    /// Side tables for the few timers that use them, keyed by slot.
    var labels: [Int32: String] = [:]
    var laps: [Int32: LapRecord] = [:]
    var ticks: [Int32: TickSchedule] = [:]
    /// Due times (engine clock) of FINISH events held for restored timers.
    var heldFinishes: [Int32: Int64] = [:]
    /// Leeways in ns (see `+Leeway`).
    var leeways: [Int32: Int64] = [:]
    /// The duration an adjusted countdown was created with, for its next
    /// restart (an adjustment lasts for the run).
    var baseDurations: [Int32: Int64] = [:]
    /// Timers on the awake clock (see `+Clocks`).
    var awakeTimers: Set<Int32> = []
    /// Alarms: the wall-clock time (Unix ns) each one rings at; for a
    /// calendar alarm, its coming occurrence.
    var alarmTimes: [Int32: Int64] = [:]
    /// Calendar alarms' schedules (see `+Calendar`).
    var calendars: [Int32: CalendarAlarm] = [:]
    /// Timers that wake a suspended machine, and the timerfds that do it
    /// (opened at the first; see `+Wake`), or why they cannot be.
    var wakeTimers: Set<Int32> = []
    var wake: WakeTimers?
    var wakeFailure: WakeFailure?
    /// The time suspended (boot clock minus awake clock) when the running
    /// AWAKE timers were last moved on past a suspend.
    var suspendedSeen: Int64 = 0
    /// Manual clock: the time simulated as suspended.
    var manualSuspended: Int64 = 0
    /// Manual clock: the wall clock minus the boot clock (the manual wall
    /// clock reads 0 at first).
    var manualWallLead: Int64 = 0
    /// The wall-clock time the kernel's wall timer is armed for; `.max` when
    /// disarmed.
    var armedWallTime = Int64.max
    /// The running alarm the wall timer is armed for (-1: none), and whether
    /// it may have moved later or stopped (suspended, cancelled, freed,
    /// finished, rung) or the wall clock was set: then the end of the next
    /// delivery round rescans. Otherwise a round does not scan the alarms,
    /// and a call arms the wall timer only sooner (`aimIfAlarm`).
    var wallOwner: Int32 = -1
    var wallDirty = false
    var nextCreated: UInt32 = 0
    var observers: [Observer] = []
    var nextObserverID: UInt64 = 1
    var nextSequence: UInt64 = 1
    var manualNow: Int64 = 0
    var closed = false
    var tornDown = false
    /// The thread inside a delivery round, if any.
    var deliveringThread: pthread_t?
    /// The timer whose unbatched handler is running now; 0 if none.
    var deliveringHandle: UInt64 = 0
    /// The STATE events claimed for delivery together (see `+Batch`); the
    /// delivering thread reads and clears its entries without the lock.
    var batch: BatchBuffer
    /// A batch is out for delivery.
    var batchOut = false
    /// The batch epoch the delivering thread has seen.
    var batchAcked: UInt64 = 0
    /// Threads sleeping in `Locked.wait`.
    var waiters = 0
    /// Ticks a delivery round delivers one by one: past these, each timer's
    /// ticks still due in the round fold into one (TOCSIN_TICK_BURST), so
    /// that a round ends after bounded work whatever the intervals (a 1 ns
    /// tick makes a billion due each second).
    var tickBurst = EngineCore.defaultTickBurst
    static let defaultTickBurst = Int(TOCSIN_TICK_BURST)
    /// Ticks taken in the current delivery round.
    var roundTicks = 0
    /// The deadline the kernel timer is armed for; `.max` when disarmed.
    var armedDeadline = Int64.max
    #if DEBUG
    /// Times `armKernelTimer` set the kernel timer (a system call each), for tests.
    var kernelTimerArmsByCalls = 0
    /// Times `rearmKernelTimer` moved the kernel timer, for tests.
    var kernelTimerRearms = 0
    #endif
    /// Polled: the eventfd has been raised and not cleared.
    var signaled = false
    /// Engine thread: the slot count at which a new slot next looks at
    /// faulting in pages ahead (`.max`: never), and whether the engine
    /// thread has a request to take (see `+Prefault`).
    var prefaultMark: Int32
    var prefaultAsked = false
    #if DEBUG
    /// Times the engine thread was asked to fault in table pages, for tests.
    var prefaultRequests = 0
    #endif
    /// Engine thread: when the kernel timer wakes it for the queued events
    /// (see `signalQueuedEvents`); nil while none wait or a round takes them.
    var queuedEventsDue: Int64?
    var engineThread: pthread_t?
    /// `close()` joins the engine thread (it was not called on it).
    var closerJoinsEngineThread = false
    /// The running wake timers whose deadlines the wake timerfds are armed
    /// for (-1: none), so that a change to any other one is O(1).
    var wakeOwners: (boot: Int32, wall: Int32) = (-1, -1)
    /// A delivery round moved a wake timer on (finished, rang) or the wall
    /// clock was set: the round's end rescans them.
    var wakeDirty = false

    /// Timers a core has room for before its tables first grow.
    static let initialCapacity: Int32 = 1024

    /// A core with its first tables reserved, untouched (about 88 KB of
    /// address space, faulted in as used), so the first thousand timers
    /// never wait for a table to be copied into a larger one.
    ///
    /// - Throws: `.outOfMemory` (nothing is left allocated).
    init(delivery: TimerEngine.Delivery, kernel: KernelWakeup?, tag: UInt32) throws(TocsinError) {
        guard let batch = BatchBuffer(capacity: Self.batchLimit) else { throw .outOfMemory }
        self.delivery = delivery
        self.kernel = kernel
        self.slots = SlotTable(tag: tag)
        self.batch = batch
        self.prefaultMark = Self.initialPrefaultMark(for: delivery)
        if delivery != .manualClock { suspendedSeen = Clocks.timeSuspended() }
        guard slots.reserve(Self.initialCapacity), heap.reserve(Int(Self.initialCapacity)),
              pending.reserve(Int(Self.initialCapacity))
        else {
            slots.deallocate()
            heap.deallocate()
            pending.removeAll()
            batch.deallocate()
            throw .outOfMemory
        }
    }

    /// The engine's clock in ns: the boot clock, or the manual time.
    @inline(__always)
    func clockNow() -> Int64 {
        delivery == .manualClock ? manualNow : bootClockNow()
    }

    /// The slot of a live handle.
    @inline(__always)
    func slotIndex(of timer: TimerID) throws(TocsinError) -> Int32 {
        guard !closed else { throw .closed }
        guard let index = slots.index(of: timer.rawValue) else { throw .noSuchTimer }
        return index
    }
}

import Glibc
import Synchronization
import Testing
import Tocsin

/// A reference model of the engine's rules, written for obviousness: linear
/// scans instead of a heap, plain arithmetic on nanoseconds, on a manual
/// clock. Random operation sequences run on the model and the engine side by
/// side; after every step states, elapsed, remaining and the exact events must
/// agree. A failure prints its seed and the shortest failing sequence found.
@Suite struct ModelTests {
    enum Op: Equatable, CustomStringConvertible {
        case countdown(milliseconds: Int64), stopwatch
        case start(Int), suspend(Int), resume(Int), cancel(Int), free(Int), lap(Int)
        case tick(Int, milliseconds: Int64)
        /// A tick of a few nanoseconds: more due in an advance than a
        /// round delivers one by one (`Model.tickBurst`), so it folds.
        case tinyTick(Int, nanoseconds: Int64)
        case adjust(Int, milliseconds: Int64)
        case coalesce(Int, Bool)
        case leeway(Int, milliseconds: Int64)
        case freeOnNextEvent(Int)
        /// Timer #a's handler frees timer #b on #a's next event.
        case freeOtherOnNextEvent(Int, Int)
        /// Adds an engine observer; removes the oldest one.
        case observe, unobserve
        /// Timer #i's handler removes the oldest observer on #i's next event.
        case unobserveOnNextEvent(Int)
        case advance(milliseconds: Int64)
        /// Puts timer #i on the awake clock; a new alarm at a wall time;
        /// sets the wall clock; a simulated suspend.
        case awake(Int), alarm(wallMilliseconds: Int64), setWall(milliseconds: Int64)
        /// A new calendar alarm on `Model.calendarSpec` (seconds 0, 7, … 56
        /// of every minute: steps of 7 s and one of 4 s).
        case calendar
        case suspendFor(milliseconds: Int64)

        var description: String {
            switch self {
            case .countdown(let ms): "countdown(\(ms)ms)"
            case .stopwatch: "stopwatch"
            case .start(let i): "start(#\(i))"
            case .suspend(let i): "suspend(#\(i))"
            case .resume(let i): "resume(#\(i))"
            case .cancel(let i): "cancel(#\(i))"
            case .free(let i): "free(#\(i))"
            case .lap(let i): "lap(#\(i))"
            case .tick(let i, let ms): "tick(#\(i), \(ms)ms)"
            case .tinyTick(let i, let ns): "tinyTick(#\(i), \(ns)ns)"
            case .adjust(let i, let ms): "adjust(#\(i), \(ms)ms)"
            case .coalesce(let i, let on): "coalesce(#\(i), \(on))"
            case .leeway(let i, let ms): "leeway(#\(i), \(ms)ms)"
            case .freeOnNextEvent(let i): "freeOnNextEvent(#\(i))"
            case .freeOtherOnNextEvent(let a, let b): "freeOtherOnNextEvent(#\(a), #\(b))"
            case .observe: "observe"
            case .unobserve: "unobserve"
            case .unobserveOnNextEvent(let i): "unobserveOnNextEvent(#\(i))"
            case .advance(let ms): "advance(\(ms)ms)"
            case .awake(let i): "awake(#\(i))"
            case .alarm(let ms): "alarm(at: \(ms)ms)"
            case .calendar: "calendar"
            case .setWall(let ms): "setWall(\(ms)ms)"
            case .suspendFor(let ms): "suspendFor(\(ms)ms)"
            }
        }
    }

    /// What a step produced: an error name or "ok", then each event.
    struct Outcome: Equatable {
        var result: String
        var events: [String]
    }

    static func randomOps(seed: UInt64, count: Int) -> [Op] {
        var random = SplitMix(seed: seed)
        var ops: [Op] = []
        var created = 0
        func pick() -> Int { created == 0 ? 0 : Int(random.next() % UInt64(created + 1)) }  // sometimes one past: unknown
        for _ in 0..<count {
            let roll = random.next() % 100
            switch roll {
            case 0..<8: ops.append(.countdown(milliseconds: Int64(random.next() % 5000) + 1)); created += 1
            case 8..<11: ops.append(.stopwatch); created += 1
            case 11..<27: ops.append(.start(pick()))
            case 27..<35: ops.append(.suspend(pick()))
            case 35..<43: ops.append(.resume(pick()))
            case 43..<49: ops.append(.cancel(pick()))
            case 49..<52: ops.append(.free(pick()))
            case 52..<56: ops.append(.lap(pick()))
            case 56..<63: ops.append(.tick(pick(), milliseconds: random.next() % 3 == 0 ? 0 : Int64(random.next() % 1500) + 50))
            case 63..<66: ops.append(.freeOnNextEvent(pick()))
            case 66..<69: ops.append(.freeOtherOnNextEvent(pick(), pick()))
            case 69..<71: ops.append(.observe)
            case 71: ops.append(.unobserve)
            case 72: ops.append(.unobserveOnNextEvent(pick()))
            case 73..<78:
                let magnitude = Int64(random.next() % 3000) + 1
                ops.append(.adjust(pick(), milliseconds: random.next() % 3 == 0 ? -magnitude : magnitude))
            case 78..<80: ops.append(.coalesce(pick(), random.next() % 4 != 0))
            case 80..<82: ops.append(.awake(pick()))
            case 82..<84: ops.append(.alarm(wallMilliseconds: Int64(random.next() % 600_000))); created += 1
            case 84..<86: ops.append(.setWall(milliseconds: Int64(random.next() % 600_000)))
            case 86..<88: ops.append(.suspendFor(milliseconds: Int64(random.next() % 5000)))
            case 88..<90: ops.append(.calendar); created += 1
            case 90..<92:
                let choices: [Int64] = [0, 50, 250, 333, 1000, 1500, 86_400_001, -1]
                ops.append(.leeway(pick(), milliseconds: choices[Int(random.next() % UInt64(choices.count))]))
            case 92:
                let choices: [Int64] = [1, 7, 1_000, 999_999, 30_000_001]
                ops.append(.tinyTick(pick(), nanoseconds: choices[Int(random.next() % UInt64(choices.count))]))
            default: ops.append(.advance(milliseconds: Int64(random.next() % 1200) * (random.next() % 4 == 0 ? 0 : 1)))
            }
        }
        return ops
    }

    /// Runs `ops` on both; nil if they agree throughout, else what differed.
    static func mismatch(in ops: [Op]) -> String? {
        guard let engine = try? TimerEngine(delivery: .manualClock) else { return "no engine" }
        defer { engine.close() }
        engine.setTickBurst(Model.tickBurst)
        let real = RealSide(engine)
        var model = Model()
        for (step, op) in ops.enumerated() {
            let expected = model.apply(op)
            let actual = real.apply(op)
            if expected != actual {
                return "step \(step) \(op): model \(expected), engine \(actual)"
            }
            for (index, timer) in model.timers.enumerated() where timer != nil {
                let modelView = model.view(index)
                let realView = real.view(index)
                if modelView != realView {
                    return "after step \(step) \(op), timer #\(index): model \(modelView), engine \(realView)"
                }
            }
        }
        return nil
    }

    /// Drops operations while the failure stays, to a short reproduction.
    static func shrink(_ ops: [Op]) -> [Op] {
        var ops = ops
        var chunk = max(1, ops.count / 2)
        while chunk >= 1 {
            var index = 0
            var removed = false
            while index < ops.count {
                let candidate = Array(ops[..<index] + ops[min(ops.count, index + chunk)...])
                if mismatch(in: candidate) != nil {
                    ops = candidate
                    removed = true
                } else {
                    index += chunk
                }
            }
            if !removed { chunk /= 2 }
        }
        return ops
    }

    static var long: Bool { getenv("TOCSIN_LONG") != nil }

    /// The seeded sequences are dealt into `parts` that Swift Testing runs
    /// side by side (a test's arguments run in parallel): the same 100,000
    /// operations, in the time of the slowest part on a machine's cores.
    static let parts = 8

    @Test(arguments: 0..<parts) func engineMatchesTheModel(part: Int) {
        let sequences = Self.long ? 5_000 : 100
        let length = 1_000
        var operations = 0
        let mine = Array(stride(from: part, to: sequences, by: Self.parts))
        for sequence in mine {
            let seed = 0x70C5_1A00 + UInt64(sequence)
            let ops = Self.randomOps(seed: seed, count: length)
            operations += ops.count
            if let problem = Self.mismatch(in: ops) {
                let shortest = Self.shrink(ops)
                Issue.record("""
                    seed \(seed): \(problem)
                    shortest failing sequence (\(shortest.count) ops): \(shortest.map(\.description).joined(separator: ", "))
                    first difference there: \(Self.mismatch(in: shortest) ?? "?")
                    """)
                return
            }
        }
        print("model test, part \(part + 1) of \(Self.parts): \(operations) operations matched the model")
        #expect(operations == mine.count * length)  // the parts together: 100,000
    }


}

/// The engine side, addressing timers by creation number.
/// `@unchecked Sendable`: used from the test's thread only (the manual
/// clock delivers inside `advance`, on the caller's thread).
final class RealSide: @unchecked Sendable {
    let engine: TimerEngine
    var handles: [TimerID?] = []
    let log = Mutex<[String]>([])
    let freeOnEvent = Mutex<Set<UInt64>>([])
    /// Handle whose next event frees the other handle.
    let freeOtherOnEvent = Mutex<[UInt64: UInt64]>([:])
    let observers = Mutex<[ObserverID]>([])
    var observersMade = 0
    let unobserveOnEvent = Mutex<Set<UInt64>>([])

    init(_ engine: TimerEngine) { self.engine = engine }

    func handle(_ index: Int) -> TimerID {
        index < handles.count ? (handles[index] ?? TimerID(rawValue: 1)) : TimerID(rawValue: 1)
    }

    func apply(_ op: ModelTests.Op) -> ModelTests.Outcome {
        log.withLock { $0 = [] }
        var result = "ok"
        do throws(TocsinError) {
            switch op {
            case .countdown(let ms): try adopt(engine.countdown(.milliseconds(ms)))
            case .stopwatch: try adopt(engine.stopwatch())
            case .start(let i): try engine.start(handle(i))
            case .suspend(let i): try engine.suspend(handle(i))
            case .resume(let i): try engine.resume(handle(i))
            case .cancel(let i): try engine.cancel(handle(i))
            case .free(let i): try engine.free(handle(i))
            case .lap(let i): result = "lap \(try engine.lap(handle(i)).nanoseconds)"
            case .tick(let i, let ms): try engine.setTickInterval(.milliseconds(ms), for: handle(i))
            case .tinyTick(let i, let ns): try engine.setTickInterval(.nanoseconds(ns), for: handle(i))
            case .adjust(let i, let ms): try engine.adjust(handle(i), by: .milliseconds(ms))
            case .coalesce(let i, let on): try engine.setTickPolicy(on ? .coalesce : .every, for: handle(i))
            case .leeway(let i, let ms): try engine.setLeeway(.milliseconds(ms), for: handle(i))
            case .freeOnNextEvent(let i):
                _ = try engine.state(of: handle(i))
                freeOnEvent.withLock { _ = $0.insert(handle(i).rawValue) }
            case .freeOtherOnNextEvent(let a, let b):
                _ = try engine.state(of: handle(a))
                _ = try engine.state(of: handle(b))
                freeOtherOnEvent.withLock { $0[handle(a).rawValue] = handle(b).rawValue }
            case .observe:
                let number = observersMade
                observersMade += 1
                let observer = try engine.addObserver { [unowned self] event in
                    let index = handles.firstIndex(of: event.timer) ?? -1
                    log.withLock { $0.append("o\(number) " + ModelEvent.describe(index: index, event)) }
                }
                observers.withLock { $0.append(observer) }
            case .unobserve:
                try removeOldestObserver()
            case .unobserveOnNextEvent(let i):
                _ = try engine.state(of: handle(i))
                unobserveOnEvent.withLock { _ = $0.insert(handle(i).rawValue) }
            case .advance(let ms): try engine.advance(by: .milliseconds(ms))
            case .awake(let i): try engine.setClock(.awake, for: handle(i))
            case .alarm(let ms): try adopt(engine.alarm(at: .milliseconds(ms)))
            case .calendar:
                let spec = try? CalendarSpec(parsing: Model.calendarSpec)
                try adopt(engine.calendar(spec ?? CalendarSpec()))
            case .setWall(let ms): try engine.setWallClock(.milliseconds(ms))
            case .suspendFor(let ms): try engine.simulateSuspend(for: .milliseconds(ms))
            }
        } catch {
            result = error.name
        }
        return .init(result: result, events: log.withLock { $0 })
    }

    private func removeOldestObserver() throws(TocsinError) {
        // The model speaks the C API's language: an unknown observer is ENOENT.
        guard try engine.removeObserver(observers.withLock { $0.first } ?? ObserverID(rawValue: .max)) else { throw .noSuchTimer }
        observers.withLock { _ = $0.removeFirst() }
    }

    private func adopt(_ timer: TimerID) throws(TocsinError) {
        let index = handles.count
        handles.append(timer)
        try engine.setHandler(for: timer) { [unowned self, engine] event in
            log.withLock { $0.append(ModelEvent.describe(index: index, event)) }
            if freeOnEvent.withLock({ $0.remove(event.timer.rawValue) }) != nil {
                try? engine.free(event.timer)  // from inside its own handler
            }
            if let other = freeOtherOnEvent.withLock({ $0.removeValue(forKey: event.timer.rawValue) }) {
                try? engine.free(TimerID(rawValue: other))  // another timer, maybe later in the same batch
            }
            if unobserveOnEvent.withLock({ $0.remove(event.timer.rawValue) }) != nil {
                try? removeOldestObserver()  // the rest of a batch goes without it
            }
        }
    }

    func view(_ index: Int) -> String {
        let timer = handle(index)
        guard let state = try? engine.state(of: timer) else { return "freed" }
        let elapsed = (try? engine.elapsed(of: timer))?.nanoseconds ?? -1
        let remaining = ((try? engine.remaining(of: timer)) ?? nil)?.nanoseconds
        return "\(state) elapsed \(elapsed) remaining \(remaining.map(String.init) ?? "-")"
    }
}

enum ModelEvent {
    static func describe(index: Int, _ event: TimerEvent) -> String {
        "#\(index) \(event.kind) \(event.state) e=\(event.elapsed.nanoseconds) r=\(event.remaining.map { String($0.nanoseconds) } ?? "-") t=\(event.tick) m=\(event.missed)"
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// The model. Every rule here is a sentence of the header, in code.
struct Model {
    struct Timer: Equatable {
        var duration: Int64?  // nil: stopwatch
        var state = TimerState.idle
        var banked: Int64 = 0  // running time before the current segment
        var segmentStart: Int64 = 0
        var interval: Int64 = 0
        var nextTick: Int64 = 1
        /// Ticks skipped by a round over its budget before `nextTick`.
        var folded: Int64 = 0
        var armedSequence: Int64?  // set while it has a due event
        var lapMark: Int64 = 0
        var freeOnEvent = false
        /// Frees this timer (by creation number) on its next event.
        var freeOtherOnEvent: Int?
        var unobserveOnEvent = false
        /// The duration before this run's adjustments (restarts use it).
        var base: Int64?
        /// Finished by an adjustment: its FINISH falls due no sooner than then.
        var dueNoSooner: Int64?
        var coalesces = false
        /// Counts the awake clock: `segmentStart` is awake time.
        var awake = false
        /// An alarm's wall time (a calendar alarm's coming occurrence).
        var alarmTime: Int64?
        var isCalendar = false
        /// Events fall due at the first multiple of it at or after their deadline.
        var leeway: Int64 = 0

        func running(at now: Int64) -> Int64 {
            let value = state == .running ? banked + (now - segmentStart) : banked
            return duration.map { min(value, $0) } ?? value
        }

        /// (running time it falls due, is a tick) or nil.
        var nextDue: (Int64, Bool)? {
            if interval > 0 {
                let at = nextTick * interval
                if duration == nil || at < duration! { return (at, true) }
            }
            return duration.map { ($0, false) }
        }

        /// On the boot clock, given the time suspended so far.
        func deadline(suspended: Int64) -> Int64? {
            guard state == .running, armedSequence != nil, let (at, _) = nextDue else { return nil }
            return max(segmentStart + (at - banked) + (awake ? suspended : 0), dueNoSooner ?? .min)
        }

        /// When it fires: the deadline, rounded up to a multiple of the leeway.
        func firing(suspended: Int64) -> Int64? {
            guard let deadline = deadline(suspended: suspended) else { return nil }
            guard leeway > 0 else { return deadline }
            let steps = deadline >= 0 ? (deadline + leeway - 1) / leeway : deadline / leeway
            return steps * leeway
        }
    }

    struct Pending {
        var timer: Int
        var time: Int64
        var kind: String  // "stateChange" or "finish"
        var state: TimerState
        var elapsed: Int64
    }

    var now: Int64 = 0
    var timers: [Timer?] = []
    var pending: [Pending] = []
    var sequence: Int64 = 1
    var observers: [Int] = []
    var observersMade = 0
    /// Boot clock minus awake clock; wall clock minus boot clock.
    var suspended: Int64 = 0
    var wallLead: Int64 = 0
    /// The ticks a round delivers one by one (tocsin.h, BOUNDED ROUNDS),
    /// small here so that tiny ticks fold within short advances; and those
    /// taken in the current round.
    static let tickBurst = 16
    var roundTicks = 0

    func exists(_ index: Int) -> Bool { index < timers.count && timers[index] != nil }

    /// The calendar alarms' spec, and its occurrences computed plainly.
    static let calendarSpec = "*:*:0/7 UTC"

    /// The first occurrence strictly after wall time `wall` (ns).
    static func occurrence(after wall: Int64) -> Int64 {
        var second = (wall >= 0 ? wall / 1_000_000_000 : (wall - 999_999_999) / 1_000_000_000) + 1
        while (second % 60 + 60) % 60 % 7 != 0 { second += 1 }
        return second * 1_000_000_000
    }

    /// The timer's clock at boot time `boot` (now by default).
    func clock(of timer: Timer, at boot: Int64? = nil) -> Int64 {
        (boot ?? now) - (timer.awake ? suspended : 0)
    }

    /// What the engine's queries must say about timer #index.
    func view(_ index: Int) -> String {
        guard let timer = timers[index] else { return "freed" }
        let elapsed = timer.running(at: clock(of: timer))
        var remaining = timer.duration.map { $0 - elapsed }
        if let time = timer.alarmTime, timer.state == .idle || timer.state == .suspended {
            remaining = max(0, time - (now + wallLead))  // the time until its wall time
        }
        return "\(timer.state) elapsed \(elapsed) remaining \(remaining.map(String.init) ?? "-")"
    }

    /// The alarm rule: its duration (and running, its segment) set so that
    /// it finishes when the wall clock reads its time; a time passed
    /// already: its running time, at least 1 ns, finishing when the wall
    /// clock passed it.
    private mutating func aim(_ i: Int) {
        guard var timer = timers[i], let time = timer.alarmTime else { return }
        let running = timer.state == .running
        let ran = max(0, running ? timer.banked + (now - timer.segmentStart) : timer.banked)
        let due = time - wallLead
        if due > now {
            timer.duration = ran + (due - now)
            if running { (timer.banked, timer.segmentStart) = (ran, now) }
        } else {
            timer.duration = max(ran, 1)
            if running { (timer.banked, timer.segmentStart) = (timer.duration!, due) }
        }
        timers[i] = timer
    }

    /// Re-pushes running timers matching `which` in the order they were armed.
    private mutating func rearmInOrder(_ which: (Timer) -> Bool, aiming: Bool) {
        let indices = timers.indices.filter { timers[$0].map { $0.state == .running && which($0) } ?? false }
        for i in indices.sorted(by: { (timers[$0]!.armedSequence ?? .max) < (timers[$1]!.armedSequence ?? .max) }) {
            let wasArmed = timers[i]!.armedSequence != nil
            if aiming { aim(i) }
            if wasArmed { arm(i) }
        }
    }

    mutating func apply(_ op: ModelTests.Op) -> ModelTests.Outcome {
        var events: [String] = []
        func fail(_ error: TocsinError) -> ModelTests.Outcome { .init(result: error.name, events: []) }
        switch op {
        case .countdown(let ms):
            timers.append(Timer(duration: ms * 1_000_000))
        case .stopwatch:
            timers.append(Timer(duration: nil))
        case .start(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            guard [.idle, .finished, .canceled].contains(timers[i]!.state) else { return fail(.wrongState) }
            if timers[i]!.state != .idle, let base = timers[i]!.base {  // a restart: the created duration
                timers[i]!.duration = base
                timers[i]!.base = nil
            }
            if timers[i]!.isCalendar { timers[i]!.alarmTime = Self.occurrence(after: now + wallLead) }
            timers[i]!.state = .running
            timers[i]!.banked = 0
            timers[i]!.segmentStart = clock(of: timers[i]!)
            timers[i]!.nextTick = 1
            timers[i]!.folded = 0
            timers[i]!.lapMark = 0
            aim(i)
            arm(i)
            if timers[i]!.alarmTime != nil { timers[i]!.dueNoSooner = now }  // a passed time: now, after its STATE
            queueState(i)
        case .suspend(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            guard timers[i]!.state == .running else { return fail(.wrongState) }
            timers[i]!.banked = timers[i]!.running(at: clock(of: timers[i]!))
            timers[i]!.state = .suspended
            timers[i]!.armedSequence = nil
            queueState(i)
        case .resume(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            guard timers[i]!.state == .suspended else { return fail(.wrongState) }
            timers[i]!.segmentStart = clock(of: timers[i]!)
            timers[i]!.state = .running
            aim(i)
            arm(i)
            if timers[i]!.alarmTime != nil { timers[i]!.dueNoSooner = now }
            queueState(i)
        case .cancel(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            guard [.running, .suspended].contains(timers[i]!.state) else { return fail(.wrongState) }
            timers[i]!.banked = timers[i]!.running(at: clock(of: timers[i]!))
            timers[i]!.state = .canceled
            timers[i]!.armedSequence = nil
            queueState(i)
        case .free(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            timers[i] = nil
            pending.removeAll { $0.timer == i }
        case .lap(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            guard [.running, .suspended].contains(timers[i]!.state) else { return fail(.wrongState) }
            let running = timers[i]!.running(at: clock(of: timers[i]!))
            defer { timers[i]!.lapMark = running }
            return .init(result: "lap \(running - timers[i]!.lapMark)", events: [])
        case .tick(let i, let ms):
            return setTick(i, nanoseconds: ms * 1_000_000)
        case .tinyTick(let i, let ns):
            return setTick(i, nanoseconds: ns)
        case .adjust(let i, let ms):
            guard exists(i) else { return fail(.noSuchTimer) }
            return adjust(i, by: ms * 1_000_000)
        case .coalesce(let i, let on):
            guard exists(i) else { return fail(.noSuchTimer) }
            timers[i]!.coalesces = on
        case .leeway(let i, let ms):
            guard ms >= 0, ms <= 86_400_000 else { return fail(.invalidArgument) }  // checked first
            guard exists(i) else { return fail(.noSuchTimer) }
            timers[i]!.leeway = ms * 1_000_000
            if timers[i]!.state == .running { arm(i) }
        case .freeOnNextEvent(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            timers[i]!.freeOnEvent = true
        case .freeOtherOnNextEvent(let a, let b):
            guard exists(a), exists(b) else { return fail(.noSuchTimer) }
            timers[a]!.freeOtherOnEvent = b
        case .observe:
            observers.append(observersMade)
            observersMade += 1
        case .unobserve:
            guard !observers.isEmpty else { return fail(.noSuchTimer) }
            observers.removeFirst()
        case .unobserveOnNextEvent(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            timers[i]!.unobserveOnEvent = true
        case .advance(let ms):
            roundTicks = 0
            let target = now + ms * 1_000_000
            while let next = nextEvent(until: target) {
                events += next
            }
            now = target
        case .awake(let i):
            guard exists(i) else { return fail(.noSuchTimer) }
            guard timers[i]!.state == .idle else { return fail(.wrongState) }
            guard timers[i]!.alarmTime == nil else { return fail(.invalidArgument) }
            timers[i]!.awake = true
        case .alarm(let ms):
            timers.append(Timer(duration: 1, alarmTime: ms * 1_000_000))
            aim(timers.count - 1)
        case .calendar:
            timers.append(Timer(duration: 1, alarmTime: Self.occurrence(after: now + wallLead), isCalendar: true))
            aim(timers.count - 1)
        case .setWall(let ms):
            wallLead = ms * 1_000_000 - now
            rearmInOrder({ $0.alarmTime != nil }, aiming: true)
            for i in timers.indices where timers[i]?.alarmTime != nil && [.idle, .suspended].contains(timers[i]!.state) {
                aim(i)
            }
            roundTicks = 0
            while let next = nextEvent(until: now) { events += next }
        case .suspendFor(let ms):
            now += ms * 1_000_000
            suspended += ms * 1_000_000
            rearmInOrder({ $0.awake }, aiming: false)
            roundTicks = 0
            while let next = nextEvent(until: now) { events += next }
        }
        // The engine re-aims an idle or suspended alarm whenever it is
        // asked about (the test's views after every step).
        // An idle or cancelled calendar alarm follows its occurrences.
        for i in timers.indices where timers[i]?.alarmTime != nil {
            let state = timers[i]!.state
            if timers[i]!.isCalendar, state == .idle || state == .canceled, timers[i]!.alarmTime! <= now + wallLead {
                timers[i]!.alarmTime = Self.occurrence(after: now + wallLead)
            }
            if state == .idle || state == .suspended { aim(i) }
        }
        return .init(result: "ok", events: events)
    }

    /// A tick interval (0: none): numbering carries on from running time.
    private mutating func setTick(_ i: Int, nanoseconds interval: Int64) -> ModelTests.Outcome {
        guard exists(i) else { return .init(result: TocsinError.noSuchTimer.name, events: []) }
        timers[i]!.interval = interval
        timers[i]!.nextTick = interval > 0 ? timers[i]!.running(at: clock(of: timers[i]!)) / interval + 1 : 1
        timers[i]!.folded = 0
        if timers[i]!.state == .running { arm(i) }
        return .init(result: "ok", events: [])
    }

    /// The header's adjust rules.
    private mutating func adjust(_ i: Int, by delta: Int64) -> ModelTests.Outcome {
        let fail = { (error: TocsinError) in ModelTests.Outcome(result: error.name, events: []) }
        if timers[i]!.isCalendar { return fail(.invalidArgument) }  // its times are the spec's
        if timers[i]!.alarmTime != nil { return adjustAlarm(i, by: delta) }
        guard let old = timers[i]!.duration, delta != 0 else { return fail(.invalidArgument) }
        let state = timers[i]!.state
        guard state != .canceled else { return fail(.wrongState) }
        let new = old + delta
        guard new > 0, new <= 3_155_760_000 * 1_000_000_000 else { return fail(.invalidArgument) }
        let elapsed = timers[i]!.running(at: clock(of: timers[i]!))
        switch state {
        case .idle, .suspended:
            guard new > elapsed else { return fail(.invalidArgument) }
            timers[i]!.base = timers[i]!.base ?? old
            timers[i]!.duration = new
            queueState(i)
        case .running:
            timers[i]!.base = timers[i]!.base ?? old
            timers[i]!.duration = new
            if new <= elapsed {  // finishes now: running time reads the new end until then
                arm(i)
                timers[i]!.dueNoSooner = now
            } else {
                arm(i)
                queueState(i)
            }
        default:  // finished
            guard delta > 0 else { return fail(.invalidArgument) }
            timers[i]!.base = timers[i]!.base ?? old
            timers[i]!.duration = new
            timers[i]!.state = .running
            timers[i]!.banked = old
            timers[i]!.segmentStart = clock(of: timers[i]!)
            if timers[i]!.interval > 0 { (timers[i]!.nextTick, timers[i]!.folded) = (old / timers[i]!.interval + 1, 0) }
            arm(i)
            queueState(i)
        }
        return .init(result: "ok", events: [])
    }

    /// The header's alarm adjust rules: its time moves.
    private mutating func adjustAlarm(_ i: Int, by delta: Int64) -> ModelTests.Outcome {
        let fail = { (error: TocsinError) in ModelTests.Outcome(result: error.name, events: []) }
        let state = timers[i]!.state
        guard state != .canceled else { return fail(.wrongState) }
        let wall = now + wallLead
        let newTime = (state == .finished ? wall : timers[i]!.alarmTime!) + delta
        guard delta != 0, newTime >= 0, newTime <= 3_155_760_000 * 1_000_000_000, state != .finished || delta > 0 else {
            return fail(.invalidArgument)
        }
        switch state {
        case .idle, .suspended:
            guard newTime > wall else { return fail(.invalidArgument) }
            timers[i]!.alarmTime = newTime
            aim(i)
            queueState(i)
        case .running:
            timers[i]!.alarmTime = newTime
            aim(i)
            arm(i)
            if newTime > wall { queueState(i) }
        default:  // finished
            let ran = timers[i]!.duration!
            timers[i]!.alarmTime = newTime
            timers[i]!.state = .running
            timers[i]!.banked = ran
            timers[i]!.segmentStart = now
            if timers[i]!.interval > 0 { (timers[i]!.nextTick, timers[i]!.folded) = (ran / timers[i]!.interval + 1, 0) }
            aim(i)
            arm(i)
            queueState(i)
        }
        return .init(result: "ok", events: [])
    }

    private mutating func arm(_ i: Int) {
        timers[i]!.dueNoSooner = nil
        timers[i]!.armedSequence = timers[i]!.nextDue == nil ? nil : sequence
        if timers[i]!.nextDue != nil { sequence += 1 }
    }

    private mutating func queueState(_ i: Int, front: Bool = false, at time: Int64? = nil) {
        let timer = timers[i]!
        let item = Pending(timer: i, time: time ?? now, kind: "stateChange", state: timer.state,
                           elapsed: timer.running(at: clock(of: timer, at: time)))
        if front { pending.insert(item, at: 0) } else { pending.append(item) }
    }

    /// The next event due by `target`, delivered (as the lines its
    /// observers and handler logged), or nil.
    private mutating func nextEvent(until target: Int64) -> [String]? {
        var due: (index: Int, deadline: Int64, sequence: Int64)?
        for (index, timer) in timers.enumerated() {
            guard let timer, let deadline = timer.firing(suspended: suspended), deadline <= target else { continue }
            if due == nil || (deadline, timer.armedSequence!) < (due!.deadline, due!.sequence) {
                due = (index, deadline, timer.armedSequence!)
            }
        }
        if let head = pending.first, due == nil || head.time <= due!.deadline {
            pending.removeFirst()
            let timer = timers[head.timer]!
            let elapsed = timer.duration.map { min(head.elapsed, $0) } ?? head.elapsed  // shortened since
            let remaining = timer.duration.map { $0 - elapsed }
            return deliver(head.timer, "\(head.kind == "finish" ? "finish" : "state") \(head.state) e=\(elapsed) r=\(remaining.map(String.init) ?? "-") t=0 m=0")
        }
        guard let due else { return nil }
        now = max(now, due.deadline)
        var timer = timers[due.index]!
        let deadline = timer.deadline(suspended: suspended)!  // before a leeway rounded it up
        let (_, isTick) = timer.nextDue!
        let text: String
        if isTick {
            // Over the round's budget: on to its last tick due by `target`,
            // delivered in its place.
            roundTicks += 1
            if roundTicks > Self.tickBurst {
                var latest = (timer.banked + (clock(of: timer, at: target) - timer.segmentStart)) / timer.interval
                if let duration = timer.duration { latest = min(latest, (duration - 1) / timer.interval) }
                if latest > timer.nextTick {
                    timer.folded += latest - timer.nextTick
                    timer.nextTick = latest
                    timer.dueNoSooner = nil
                    timers[due.index] = timer
                    return nextEvent(until: target)
                }
            }
            // Coalescing: the last tick due by `target` before any other event.
            var tick = timer.nextTick
            if timer.coalesces {
                var last = target
                for (index, other) in timers.enumerated() where index != due.index {
                    guard let other, let deadline = other.firing(suspended: suspended) else { continue }
                    last = min(last, other.armedSequence! > due.sequence ? deadline : deadline - 1)
                }
                if let head = pending.first { last = min(last, head.time - 1) }
                var latest = (timer.banked + (clock(of: timer, at: last) - timer.segmentStart)) / timer.interval
                if let duration = timer.duration { latest = min(latest, (duration - 1) / timer.interval) }
                tick = max(tick, latest)
                now = max(now, timer.segmentStart + (tick * timer.interval - timer.banked) + (timer.awake ? suspended : 0))
            }
            let at = tick * timer.interval
            text = "tick running e=\(at) r=\(timer.duration.map { String($0 - at) } ?? "-") t=\(tick) m=\(tick - timer.nextTick + timer.folded)"
            timer.nextTick = tick + 1
            timer.folded = 0
            timer.dueNoSooner = nil  // only the first push after a start or adjustment is held back
            if timer.nextDue == nil { timer.armedSequence = nil }
            timers[due.index] = timer
        } else if timer.isCalendar {
            // A ring: on to the first occurrence after the wall clock now,
            // the ones passed over counted; it runs on, keeping its place.
            let wall = max(timer.alarmTime!, now + wallLead)
            var (last, skipped) = (timer.alarmTime!, 0)
            while Self.occurrence(after: last) <= wall {
                last = Self.occurrence(after: last)
                skipped += 1
            }
            timers[due.index]!.alarmTime = Self.occurrence(after: wall)
            aim(due.index)
            timers[due.index]!.dueNoSooner = nil
            let ran = timers[due.index]!.running(at: now)
            text = "finish running e=\(ran) r=\(timers[due.index]!.duration! - ran) t=0 m=\(skipped)"
        } else {
            timer.banked = timer.duration!
            timer.state = .finished
            timer.armedSequence = nil
            timers[due.index] = timer
            queueState(due.index, front: true, at: deadline)
            text = "finish finished e=\(timer.duration!) r=0 t=0 m=0"
        }
        return deliver(due.index, text)
    }

    /// The observers, then the handler run: they record the event, and the
    /// handler may free its own timer or another.
    private mutating func deliver(_ index: Int, _ text: String) -> [String] {
        let line = "#\(index) \(text)"
        let lines = observers.map { "o\($0) " + line } + [line]
        if timers[index]!.unobserveOnEvent {
            timers[index]!.unobserveOnEvent = false
            if !observers.isEmpty { observers.removeFirst() }
        }
        if let other = timers[index]!.freeOtherOnEvent {
            timers[index]!.freeOtherOnEvent = nil
            if exists(other) { freeTimer(other) }
        }
        if exists(index) && timers[index]!.freeOnEvent { freeTimer(index) }
        return lines
    }

    private mutating func freeTimer(_ index: Int) {
        timers[index] = nil
        pending.removeAll { $0.timer == index }
    }
}

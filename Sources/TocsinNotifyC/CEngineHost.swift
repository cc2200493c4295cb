import CTocsin
import TocsinBase
import CTocsinNotify
import TocsinDesktop

/// The functions of the libtocsin.so.0 loaded in this process, typed by
/// their declarations in tocsin.h (see tocsin_engine_functions.h).
struct EngineFunctions: @unchecked Sendable {
    let table: tocsin_engine_functions

    /// Loaded once; nil if libtocsin.so.0 or one of its functions cannot be found.
    static let shared: EngineFunctions? = {
        var table = tocsin_engine_functions()
        return tocsin_find_engine_functions(&table) == 0 ? EngineFunctions(table: table) : nil
    }()

    func start(_ engine: OpaquePointer, _ timer: tocsin_timer) -> Int32 {
        table.timer_start.unsafelyUnwrapped(engine, timer)
    }

    func state(_ engine: OpaquePointer, _ timer: tocsin_timer) -> Int32 {
        table.timer_state.unsafelyUnwrapped(engine, timer)
    }
}

/// A `tocsin_engine *` of the host's libtocsin.so as an alert host.
final class CEngineHost: AlertHost, @unchecked Sendable {
    let engine: OpaquePointer
    private let functions: EngineFunctions
    /// Set by `observe`, cleared by `stopObserving`, under the notifier's lock.
    private var observer: UInt64 = 0
    private var handler: (@Sendable (UInt64, HostEvent) -> Void)?

    init(_ engine: OpaquePointer, _ functions: EngineFunctions) {
        self.engine = engine
        self.functions = functions
    }

    func label(of timer: UInt64) -> String {
        var buffer = [CChar](repeating: 0, count: Int(TOCSIN_LABEL_MAX) + 1)
        guard functions.table.timer_label.unsafelyUnwrapped(engine, timer, &buffer, buffer.count) >= 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func reading(of timer: UInt64) -> HostReading? {
        let table = functions.table
        let state: HostReading.State
        switch table.timer_state.unsafelyUnwrapped(engine, timer) {
        case Int32(TOCSIN_IDLE): state = .idle
        case Int32(TOCSIN_RUNNING): state = .running
        case Int32(TOCSIN_SUSPENDED): state = .suspended
        case Int32(TOCSIN_FINISHED): state = .finished
        case Int32(TOCSIN_CANCELED): state = .canceled
        default: return nil  // gone
        }
        var elapsed = 0.0, remaining = 0.0, alarmTime = 0.0
        guard table.timer_elapsed.unsafelyUnwrapped(engine, timer, &elapsed) == 0 else { return nil }
        let hasRemaining = table.timer_remaining.unsafelyUnwrapped(engine, timer, &remaining) == 0 && remaining >= 0  // stopwatch: -1
        let isAlarm = table.timer_alarm_time.unsafelyUnwrapped(engine, timer, &alarmTime) == 0
        return HostReading(state: state, remaining: hasRemaining ? Self.nanoseconds(remaining) : nil,
                           elapsed: Self.nanoseconds(elapsed), isAlarm: isAlarm)
    }

    func perform(_ action: HostAction, on timer: UInt64) -> Bool {
        let table = functions.table
        switch action {
        case .start: return functions.start(engine, timer) == 0
        case .suspend: return table.timer_suspend.unsafelyUnwrapped(engine, timer) == 0
        case .resume: return table.timer_resume.unsafelyUnwrapped(engine, timer) == 0
        case .cancel: return table.timer_cancel.unsafelyUnwrapped(engine, timer) == 0
        case .adjust(let seconds), .snooze(let seconds): return table.timer_adjust.unsafelyUnwrapped(engine, timer, seconds) == 0
        case .skip:  // the notice's Skip this one: a calendar alarm's coming ring; a one-time alarm is cancelled
            guard let skip = table.calendar_skip else { return false }
            switch skip(engine, timer, 1) {
            case 0: return true
            case Int32(TOCSIN_EINVAL): return table.timer_cancel.unsafelyUnwrapped(engine, timer) == 0  // not a calendar alarm
            default: return false
            }
        }
    }

    /// Seconds as the C ABI reports them, in nanoseconds (saturating).
    private static func nanoseconds(_ seconds: Double) -> Int64 {
        Nanos.saturating(seconds: seconds)
    }

    func observe(_ handler: @escaping @Sendable (UInt64, HostEvent) -> Void) -> Bool {
        self.handler = handler
        let me = Unmanaged.passUnretained(self).toOpaque()
        var id: UInt64 = 0
        let status = functions.table.engine_add_observer.unsafelyUnwrapped(engine, { _, event, raw in
            guard let event = event?.pointee, let raw else { return }
            let host = Unmanaged<CEngineHost>.fromOpaque(raw).takeUnretainedValue()
            switch (event.kind, event.state) {
            case (Int32(TOCSIN_EVENT_FINISH), _): host.handler?(event.timer, .finished)
            case (Int32(TOCSIN_EVENT_STATE), Int32(TOCSIN_RUNNING)): host.handler?(event.timer, .running)
            case (Int32(TOCSIN_EVENT_STATE), Int32(TOCSIN_SUSPENDED)): host.handler?(event.timer, .suspended)
            case (Int32(TOCSIN_EVENT_STATE), Int32(TOCSIN_CANCELED)): host.handler?(event.timer, .canceled)
            default: break
            }
        }, me, &id)
        observer = status == 0 ? id : 0
        return status == 0
    }

    func stopObserving() {
        // After this returns the observer is not running: the host may be freed.
        if observer != 0 { _ = functions.table.engine_remove_observer.unsafelyUnwrapped(engine, observer) }
        observer = 0
        handler = nil
    }
}

import Tocsin
import TocsinBase

/// A refused call in words that name the timer, its state and the value
/// ("Tea is already paused"), for the D-Bus error's message, which the
/// command prints as it is.
extension TimerService {
    /// The calls that change a timer, for their messages.
    enum Call {
        case pause, resume, cancel, restart, lap, snooze
        case adjust(Double)
        /// Skip by count (0: undo) or until a Unix time.
        case skip(count: UInt32?, until: Double?)
    }

    /// The engine's `error` for `call` on `entry`, explained.
    func explain(_ error: TocsinError, of call: Call, on entry: Entry) -> ServiceError {
        let timer = entry.timer
        let label = (try? engine.label(of: timer)).flatMap { $0.isEmpty ? nil : $0 } ?? tr("timer {id}", ["id": String(entry.id)])
        guard let state = try? engine.state(of: timer) else { return ServiceError(error) }
        let kind: ServiceError.Kind = error == .wrongState ? .wrongState : error == .invalidArgument ? .invalidArgument : .failed
        let message: String? = switch (call, state) {
        case (.pause, .suspended): tr("{label} is already paused", ["label": label])
        case (.pause, _): tr("{label} {state}: only a running timer can be paused", ["label": label, "state": Self.words(state)])
        case (.resume, .running): tr("{label} is already running", ["label": label])
        case (.resume, _): tr("{label} {state}: only a paused timer can be resumed", ["label": label, "state": Self.words(state)])
        case (.cancel, _): tr("{label} {state}: only a running or paused timer can be cancelled", ["label": label, "state": Self.words(state)])
        case (.lap, _): tr("{label} {state}: laps are taken while it runs or is paused", ["label": label, "state": Self.words(state)])
        case (.adjust(let seconds), _): adjustMessage(label, entry, state, seconds, error)
        case (.restart, _): nil
        case (.snooze, _): tr("{label} {state}: only a timer that has rung can be snoozed", ["label": label, "state": Self.words(state)])
        case (.skip(let count, let until), _): skipMessage(label, entry, state, count: count, until: until, error)
        }
        return message.map { ServiceError(kind, $0) } ?? ServiceError(error)
    }

    private func adjustMessage(_ label: String, _ entry: Entry, _ state: TimerState, _ seconds: Double,
                               _ error: TocsinError) -> String? {
        guard let delta = Nanos.from(signedSeconds: seconds), delta != 0 else {
            return tr("adjust takes a finite number of seconds other than 0, got {value}", ["value": "\(seconds)"])
        }
        if entry.kind == .stopwatch { return tr("{label} is a stopwatch: only countdowns and alarms can be adjusted", ["label": label]) }
        if entry.kind == .calendar { return tr("{label} is a calendar alarm: its times are its spec's; cancel it or add another", ["label": label]) }
        if state == .canceled { return tr("{label} was cancelled: restart it first", ["label": label]) }
        if state == .finished, delta < 0 { return tr("{label} has finished: only added time (+) runs it again", ["label": label]) }
        guard error == .invalidArgument, delta < 0,
              let remaining = (try? engine.remaining(of: entry.timer)).flatMap({ $0 })?.nanoseconds
        else { return nil }
        let left = Wording.clock(remaining, roundUp: true)
        let change = Nanos.words(delta)
        guard remaining > Nanos.perSecond else {
            return tr("{label} has {time} left; {change} would end it before now: use cancel", ["label": label, "time": left, "change": change])
        }
        return tr("{label} has {time} left; {change} would end it before now: use cancel, or {most}",
                  ["label": label, "time": left, "change": change, "most": Nanos.words(-(remaining - 1) / Nanos.perSecond * Nanos.perSecond)])
    }

    private func skipMessage(_ label: String, _ entry: Entry, _ state: TimerState, count: UInt32?, until: Double?,
                             _ error: TocsinError) -> String? {
        if entry.kind != .calendar {
            return tr("{label} is not a calendar alarm: only a calendar alarm's rings can be skipped (cancel or remove it instead)", ["label": label])
        }
        if state == .finished { return tr("{label} has finished: its spec has no ring left", ["label": label]) }
        if error == .outOfRange { return tr("{label} has no ring left after the skipped ones: remove it instead", ["label": label]) }
        if let count, count > TimerEngine.maxSkippedRings {
            return tr("a skip is of at most {most} rings, got {count}", ["most": String(TimerEngine.maxSkippedRings), "count": String(count)])
        }
        if let until, error == .invalidArgument {
            return tr("skip until takes a Unix time after now, got {value}", ["value": "\(until)"])
        }
        return nil
    }

    /// "is paused", "has finished"...: the state as the rest of a sentence.
    static func words(_ state: TimerState) -> String {
        switch state {
        // TRANSLATORS: a timer's state as the rest of "{label} {state}: ...".
        case .idle: tr("has not started")
        case .running: tr("is running")
        case .suspended: tr("is paused")
        case .finished: tr("has finished")
        case .canceled: tr("was cancelled")
        }
    }
}

extension ServiceError {
    /// The service's name for an engine failure.
    init(_ error: TocsinError) {
        if error == .outOfRange {
            self.init(.invalidArgument, "the calendar spec has no occurrence left (its last date has passed)")
            return
        }
        let kind: Kind = switch error {
        case .noSuchTimer: .noSuchTimer
        case .invalidArgument: .invalidArgument
        case .wrongState: .wrongState
        default: .failed
        }
        self.init(kind, error.description)
    }
}

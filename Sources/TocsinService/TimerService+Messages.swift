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
        let label = (try? engine.label(of: timer)).flatMap { $0.isEmpty ? nil : $0 } ?? "timer \(entry.id)"
        guard let state = try? engine.state(of: timer) else { return ServiceError(error) }
        let kind: ServiceError.Kind = error == .wrongState ? .wrongState : error == .invalidArgument ? .invalidArgument : .failed
        let message: String? = switch (call, state) {
        case (.pause, .suspended): "\(label) is already paused"
        case (.pause, _): "\(label) \(Self.words(state)): only a running timer can be paused"
        case (.resume, .running): "\(label) is already running"
        case (.resume, _): "\(label) \(Self.words(state)): only a paused timer can be resumed"
        case (.cancel, _): "\(label) \(Self.words(state)): only a running or paused timer can be cancelled"
        case (.lap, _): "\(label) \(Self.words(state)): laps are taken while it runs or is paused"
        case (.adjust(let seconds), _): adjustMessage(label, entry, state, seconds, error)
        case (.restart, _): nil
        case (.snooze, _): "\(label) \(Self.words(state)): only a timer that has rung can be snoozed"
        case (.skip(let count, let until), _): skipMessage(label, entry, state, count: count, until: until, error)
        }
        return message.map { ServiceError(kind, $0) } ?? ServiceError(error)
    }

    private func adjustMessage(_ label: String, _ entry: Entry, _ state: TimerState, _ seconds: Double,
                               _ error: TocsinError) -> String? {
        guard let delta = Nanos.from(signedSeconds: seconds), delta != 0 else {
            return "adjust takes a finite number of seconds other than 0, got \(seconds)"
        }
        if entry.kind == .stopwatch { return "\(label) is a stopwatch: only countdowns and alarms can be adjusted" }
        if entry.kind == .calendar { return "\(label) is a calendar alarm: its times are its spec's; cancel it or add another" }
        if state == .canceled { return "\(label) was cancelled: restart it first" }
        if state == .finished, delta < 0 { return "\(label) has finished: only added time (+) runs it again" }
        guard error == .invalidArgument, delta < 0,
              let remaining = (try? engine.remaining(of: entry.timer)).flatMap({ $0 })?.nanoseconds
        else { return nil }
        let left = Wording.clock(remaining, roundUp: true)
        let most = remaining > Nanos.perSecond ? ", or \(Nanos.words(-(remaining - 1) / Nanos.perSecond * Nanos.perSecond))" : ""
        return "\(label) has \(left) left; \(Nanos.words(delta)) would end it before now: use cancel\(most)"
    }

    private func skipMessage(_ label: String, _ entry: Entry, _ state: TimerState, count: UInt32?, until: Double?,
                             _ error: TocsinError) -> String? {
        if entry.kind != .calendar {
            return "\(label) is not a calendar alarm: only a calendar alarm's rings can be skipped (cancel or remove it instead)"
        }
        if state == .finished { return "\(label) has finished: its spec has no ring left" }
        if error == .outOfRange { return "\(label) has no ring left after the skipped ones: remove it instead" }
        if let count, count > TimerEngine.maxSkippedRings {
            return "a skip is of at most \(TimerEngine.maxSkippedRings) rings, got \(count)"
        }
        if let until, error == .invalidArgument {
            return "skip until takes a Unix time after now, got \(until)"
        }
        return nil
    }

    /// "is paused", "has finished"...: the state as the rest of a sentence.
    static func words(_ state: TimerState) -> String {
        switch state {
        case .idle: "has not started"
        case .running: "is running"
        case .suspended: "is paused"
        case .finished: "has finished"
        case .canceled: "was cancelled"
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

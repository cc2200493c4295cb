// The timer half of the C ABI in include/tocsin.h.
public import CTocsin
import Glibc
import Tocsin

@_cdecl("tocsin_countdown_new")
public func tocsin_countdown_new(
    _ pointer: OpaquePointer?, _ seconds: Double, _ out: UnsafeMutablePointer<tocsin_timer>?
) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        guard let nanoseconds = Nanos.from(seconds: seconds) else { throw .invalidArgument }
        out.pointee = try core.countdown(nanoseconds: nanoseconds).rawValue
    }
}

@_cdecl("tocsin_stopwatch_new")
public func tocsin_stopwatch_new(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<tocsin_timer>?) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        out.pointee = try core.stopwatch().rawValue
    }
}

@_cdecl("tocsin_timer_free")
public func tocsin_timer_free(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    statusHolding(pointer) { engine throws(TocsinError) in try engine.free(TimerID(rawValue: timer)) }
}

@_cdecl("tocsin_timer_set_callback")
public func tocsin_timer_set_callback(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ callback: tocsin_callback?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        try core.setCallback(for: TimerID(rawValue: timer), callback, context: userData)
    }
}

@_cdecl("tocsin_timer_set_tick")
public func tocsin_timer_set_tick(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ seconds: Double) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard let interval = Nanos.from(seconds: seconds) else { throw .invalidArgument }
        try core.setTickInterval(nanoseconds: interval, for: TimerID(rawValue: timer))
    }
}

@_cdecl("tocsin_timer_set_label")
public func tocsin_timer_set_label(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ label: UnsafePointer<CChar>?
) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        var text: String?
        if let label {
            // Bounded scan: a huge or unterminated-looking label is rejected
            // after TOCSIN_LABEL_MAX + 1 bytes, never read to its end.
            let length = strnlen(label, TimerEngine.maxLabelBytes + 1)
            guard length <= TimerEngine.maxLabelBytes else { throw .invalidArgument }
            let bytes = UnsafeRawBufferPointer(start: label, count: length)
            guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .invalidArgument }
            text = decoded
        }
        try core.setLabel(text, for: TimerID(rawValue: timer))
    }
}

@_cdecl("tocsin_timer_label")
public func tocsin_timer_label(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int32 {
    if buffer == nil && capacity != 0 { return Int32(TOCSIN_EINVAL) }
    let capacity = capacity < 0 ? Int.max : capacity  // a size_t above Int.max
    return count(pointer) { core throws(TocsinError) in
        try core.label(of: TimerID(rawValue: timer)).copyTruncated(into: buffer, capacity: capacity)
    }
}

@_cdecl("tocsin_timer_start")
public func tocsin_timer_start(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    status(pointer) { core throws(TocsinError) in try core.start(TimerID(rawValue: timer)) }
}

@_cdecl("tocsin_timer_suspend")
public func tocsin_timer_suspend(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    status(pointer) { core throws(TocsinError) in try core.suspend(TimerID(rawValue: timer)) }
}

@_cdecl("tocsin_timer_resume")
public func tocsin_timer_resume(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    status(pointer) { core throws(TocsinError) in try core.resume(TimerID(rawValue: timer)) }
}

@_cdecl("tocsin_timer_cancel")
public func tocsin_timer_cancel(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    statusHolding(pointer) { engine throws(TocsinError) in try engine.cancel(TimerID(rawValue: timer)) }
}

@_cdecl("tocsin_timer_set_tick_policy")
public func tocsin_timer_set_tick_policy(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ policy: Int32) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard let policy = TickPolicy(rawValue: policy) else { throw .invalidArgument }
        try core.setTickPolicy(policy, for: TimerID(rawValue: timer))
    }
}

@_cdecl("tocsin_timer_set_leeway")
public func tocsin_timer_set_leeway(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ seconds: Double) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard let leeway = Nanos.from(seconds: seconds) else { throw .invalidArgument }
        try core.setLeeway(nanoseconds: leeway, for: TimerID(rawValue: timer))
    }
}

@_cdecl("tocsin_timer_leeway")
public func tocsin_timer_leeway(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        out.pointee = Nanos.seconds(try core.leeway(of: TimerID(rawValue: timer)))
    }
}

@_cdecl("tocsin_timer_adjust")
public func tocsin_timer_adjust(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ deltaSeconds: Double) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard let delta = Nanos.from(signedSeconds: deltaSeconds) else { throw .invalidArgument }
        try core.adjust(TimerID(rawValue: timer), byNanoseconds: delta)
    }
}

@_cdecl("tocsin_timer_lap")
public func tocsin_timer_lap(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        let lap = try core.lapNanoseconds(TimerID(rawValue: timer))
        out?.pointee = Nanos.seconds(lap)
    }
}

@_cdecl("tocsin_timer_laps")
public func tocsin_timer_laps(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ buffer: UnsafeMutablePointer<Double>?, _ capacity: Int
) -> Int32 {
    if buffer == nil && capacity != 0 { return Int32(TOCSIN_EINVAL) }
    let capacity = capacity < 0 ? Int.max : capacity  // a size_t above Int.max
    return count(pointer) { core throws(TocsinError) in
        let laps = try core.lapNanoseconds(of: TimerID(rawValue: timer))
        if let buffer {
            for (index, lap) in laps.prefix(capacity).enumerated() {
                buffer[index] = Nanos.seconds(lap)
            }
        }
        return laps.count
    }
}

@_cdecl("tocsin_timer_state")
public func tocsin_timer_state(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    count(pointer) { core throws(TocsinError) in
        Int(try core.state(of: TimerID(rawValue: timer)).rawValue)
    }
}

@_cdecl("tocsin_timer_elapsed")
public func tocsin_timer_elapsed(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        out.pointee = Nanos.seconds(try core.elapsedNanoseconds(of: TimerID(rawValue: timer)))
    }
}

@_cdecl("tocsin_timer_remaining")
public func tocsin_timer_remaining(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        out.pointee = try core.remainingNanoseconds(of: TimerID(rawValue: timer)).map(Nanos.seconds) ?? -1
    }
}

@_cdecl("tocsin_timer_duration")
public func tocsin_timer_duration(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        out.pointee = try core.durationNanoseconds(of: TimerID(rawValue: timer)).map(Nanos.seconds) ?? -1
    }
}

@_cdecl("tocsin_timer_set_events")
public func tocsin_timer_set_events(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ events: UInt32) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        try core.setEvents(TimerEvent.Kinds(rawValue: events), for: TimerID(rawValue: timer))
    }
}

@_cdecl("tocsin_timer_events")
public func tocsin_timer_events(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    count(pointer) { core throws(TocsinError) in
        Int(try core.events(for: TimerID(rawValue: timer)).rawValue)
    }
}

@_cdecl("tocsin_countdown_start")
public func tocsin_countdown_start(
    _ pointer: OpaquePointer?, _ seconds: Double, _ events: UInt32, _ callback: tocsin_callback?,
    _ userData: UnsafeMutableRawPointer?, _ out: UnsafeMutablePointer<tocsin_timer>?
) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard let nanoseconds = Nanos.from(seconds: seconds) else { throw .invalidArgument }
        let timer = try core.startCountdown(
            nanoseconds: nanoseconds, events: TimerEvent.Kinds(rawValue: events), callback: callback,
            context: userData)
        out?.pointee = timer.rawValue
    }
}

// Clocks, alarms and the simulated machine: the C ABI in include/tocsin.h.
public import CTocsin
import Tocsin

@_cdecl("tocsin_timer_set_clock")
public func tocsin_timer_set_clock(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ clock: Int32) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard let clock = TimerClock(rawValue: clock) else { throw .invalidArgument }
        try core.setClock(clock, for: TimerID(rawValue: timer))
    }
}

@_cdecl("tocsin_timer_clock")
public func tocsin_timer_clock(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    count(pointer) { core throws(TocsinError) in Int(try core.clock(of: TimerID(rawValue: timer)).rawValue) }
}

@_cdecl("tocsin_alarm_new")
public func tocsin_alarm_new(
    _ pointer: OpaquePointer?, _ unixSeconds: Double, _ out: UnsafeMutablePointer<tocsin_timer>?
) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        guard let time = Nanos.from(seconds: unixSeconds) else { throw .invalidArgument }
        out.pointee = try core.alarm(atNanoseconds: time).rawValue
    }
}

@_cdecl("tocsin_timer_alarm_time")
public func tocsin_timer_alarm_time(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        guard let time = try core.alarmTime(of: TimerID(rawValue: timer)) else { throw .invalidArgument }
        out.pointee = Nanos.seconds(time)
    }
}

@_cdecl("tocsin_engine_wall_clock")
public func tocsin_engine_wall_clock(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        out.pointee = Nanos.seconds(try core.wallClockNanoseconds())
    }
}

@_cdecl("tocsin_engine_simulate_suspend")
public func tocsin_engine_simulate_suspend(_ pointer: OpaquePointer?, _ seconds: Double) -> Int32 {
    countHolding(pointer) { engine throws(TocsinError) in
        guard let step = Nanos.from(seconds: seconds) else { throw .invalidArgument }
        return try engine.simulateSuspend(nanoseconds: step)
    }
}

@_cdecl("tocsin_engine_set_wall_clock")
public func tocsin_engine_set_wall_clock(_ pointer: OpaquePointer?, _ unixSeconds: Double) -> Int32 {
    countHolding(pointer) { engine throws(TocsinError) in
        guard let time = Nanos.from(seconds: unixSeconds) else { throw .invalidArgument }
        return try engine.setWallClock(nanoseconds: time)
    }
}

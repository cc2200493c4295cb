// Timers that wake a suspended machine: the C ABI in include/tocsin.h.
public import CTocsin
import Tocsin

@_cdecl("tocsin_timer_set_wake")
public func tocsin_timer_set_wake(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ wake: Int32) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard wake == 0 || wake == 1 else { throw .invalidArgument }
        try core.setWake(wake == 1, for: TimerID(rawValue: timer))
    }
}

@_cdecl("tocsin_timer_wake")
public func tocsin_timer_wake(_ pointer: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    count(pointer) { core throws(TocsinError) in try core.wakes(TimerID(rawValue: timer)) ? 1 : 0 }
}

@_cdecl("tocsin_engine_can_wake")
public func tocsin_engine_can_wake(_ pointer: OpaquePointer?) -> Int32 {
    count(pointer) { core throws(TocsinError) in try core.wakeFailureReason() == nil ? 1 : 0 }
}

@_cdecl("tocsin_engine_wake_reason")
public func tocsin_engine_wake_reason(
    _ pointer: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int32 {
    if buffer == nil && capacity != 0 { return Int32(TOCSIN_EINVAL) }
    let capacity = capacity < 0 ? Int.max : capacity
    return count(pointer) { core throws(TocsinError) in
        (try core.wakeFailureReason() ?? "").copyTruncated(into: buffer, capacity: capacity)
    }
}

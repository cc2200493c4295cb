// Calendar alarms: the C ABI in include/tocsin.h.
public import CTocsin
import Glibc
import Tocsin

/// The longest spec read, in bytes: longer is `TOCSIN_EINVAL`, never read
/// to its end.
private var specMaxBytes: Int { 4096 }

/// The spec parsed (the last few are remembered), or why not.
private func parsedSpec(_ spec: UnsafePointer<CChar>?) -> Result<CalendarSpec, CalendarSpecError> {
    guard let spec else { return .failure(CalendarSpecError("no spec (NULL)", column: 1)) }
    let length = strnlen(spec, specMaxBytes + 1)
    guard length <= specMaxBytes else {
        return .failure(CalendarSpecError("the spec is longer than \(specMaxBytes) bytes", column: specMaxBytes + 1))
    }
    do throws(CalendarSpecError) {
        return .success(try CalendarSpec.parsed(utf8: UnsafeRawBufferPointer(start: spec, count: length)))
    } catch {
        return .failure(error)
    }
}

@_cdecl("tocsin_calendar_next")
public func tocsin_calendar_next(
    _ spec: UnsafePointer<CChar>?, _ afterUnixSeconds: Double, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    // NaN fails the comparison; about 3,000 years either side of 1970.
    guard let out, abs(afterUnixSeconds) <= 1e11, case .success(let parsed) = parsedSpec(spec) else {
        return Int32(TOCSIN_EINVAL)
    }
    var after = Int64(afterUnixSeconds)  // toward zero: floored below
    if Double(after) > afterUnixSeconds { after -= 1 }
    guard let rules = parsed.zoneRules() else { return Int32(TOCSIN_EINVAL) }  // uninstalled since
    guard let next = parsed.next(after: after, in: rules) else { return Int32(TOCSIN_ERANGE) }
    out.pointee = Double(next)
    return Int32(TOCSIN_OK)
}

@_cdecl("tocsin_calendar_check")
public func tocsin_calendar_check(
    _ spec: UnsafePointer<CChar>?, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int32 {
    if buffer == nil && capacity != 0 { return Int32(TOCSIN_EINVAL) }
    let capacity = capacity < 0 ? Int.max : capacity  // a size_t above Int.max
    switch parsedSpec(spec) {
    case .success(let parsed):
        return Int32(clamping: parsed.normalized.copyTruncated(into: buffer, capacity: capacity))
    case .failure(let error):
        _ = error.description.copyTruncated(into: buffer, capacity: capacity)
        return Int32(TOCSIN_EINVAL)
    }
}

@_cdecl("tocsin_calendar_new")
public func tocsin_calendar_new(
    _ pointer: OpaquePointer?, _ spec: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<tocsin_timer>?
) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        guard case .success(let parsed) = parsedSpec(spec) else { throw .invalidArgument }
        out.pointee = try core.calendar(parsed).rawValue
    }
}

@_cdecl("tocsin_timer_calendar")
public func tocsin_timer_calendar(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int32 {
    if buffer == nil && capacity != 0 { return Int32(TOCSIN_EINVAL) }
    let capacity = capacity < 0 ? Int.max : capacity
    return count(pointer) { core throws(TocsinError) in
        guard let spec = try core.calendarSpec(of: TimerID(rawValue: timer)) else { throw .invalidArgument }
        return spec.normalized.copyTruncated(into: buffer, capacity: capacity)
    }
}

@_cdecl("tocsin_calendar_skip")
public func tocsin_calendar_skip(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ count: UInt32) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        if count == 0 {
            try core.clearSkip(TimerID(rawValue: timer))
        } else {
            try core.skipRings(TimerID(rawValue: timer), count: UInt64(count))
        }
    }
}

@_cdecl("tocsin_calendar_skip_until")
public func tocsin_calendar_skip_until(_ pointer: OpaquePointer?, _ timer: tocsin_timer, _ unixSeconds: Double) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard let time = Nanos.from(seconds: unixSeconds) else { throw .invalidArgument }
        try core.skipRings(TimerID(rawValue: timer), untilNanoseconds: time)
    }
}

@_cdecl("tocsin_calendar_skipped_until")
public func tocsin_calendar_skipped_until(
    _ pointer: OpaquePointer?, _ timer: tocsin_timer, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    count(pointer) { core throws(TocsinError) in
        guard let until = try core.skippedUntil(TimerID(rawValue: timer)) else { return 0 }
        out?.pointee = Nanos.seconds(until)
        return 1
    }
}

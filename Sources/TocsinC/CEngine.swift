// The engine half of the C ABI in include/tocsin.h: thin wrappers over
// TimerEngine. No Swift error or trap crosses this boundary: every failure
// becomes a TOCSIN_E* code.
public import CTocsin
import Glibc
import Tocsin
import TocsinBase

/// The engine behind a `tocsin_engine *`, or nil for NULL (a strong reference).
@inline(__always)
func engine(_ pointer: OpaquePointer?) -> TimerEngine? {
    guard let pointer else { return nil }
    return Unmanaged<TimerEngine>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

/// The lock-guarded core of the engine behind a `tocsin_engine *`, read
/// without keeping a reference to the engine: a plain load from the object,
/// so no retain or release is left in the call. They are two atomic
/// read-modify-writes per call, and dropping them halved the cost of the
/// three calls that arm a timer (128 to 66 ns on a manual clock). The
/// guaranteed reference says so to the compiler: the optimizer of the
/// Embedded build does not drop the pair by itself (it cost 25 ns a call).
@inline(__always)
func lockedCore(_ pointer: OpaquePointer) -> LockedCore {
    Unmanaged<TimerEngine>.fromOpaque(UnsafeRawPointer(pointer))._withUnsafeGuaranteedRef { $0.core }
}

/// Runs `body` on the engine's core and maps its outcome to a status code:
/// for calls that never wait and call no handler.
@inline(__always)
func status(_ pointer: OpaquePointer?, _ body: (LockedCore) throws(TocsinError) -> Void) -> Int32 {
    count(pointer) { core throws(TocsinError) in
        try body(core)
        return Int(TOCSIN_OK)
    }
}

/// A count (or fd) as a non-negative status, or the error (as `status`).
@inline(__always)
func count(_ pointer: OpaquePointer?, _ body: (LockedCore) throws(TocsinError) -> Int) -> Int32 {
    guard let pointer else { return Int32(TOCSIN_EINVAL) }
    do throws(TocsinError) {
        return Int32(clamping: try body(lockedCore(pointer)))
    } catch {
        return error.code
    }
}

/// As `status`, on the engine itself, holding a strong reference for the
/// call: for calls that may wait for a running handler (cancel, free,
/// removing an observer) or run handlers (dispatch, advance). A handler may
/// free the engine meanwhile; the reference keeps it from being deallocated
/// under this call, which then gets `TOCSIN_ECLOSED` or finishes its wait.
@inline(__always)
func statusHolding(_ pointer: OpaquePointer?, _ body: (TimerEngine) throws(TocsinError) -> Void) -> Int32 {
    countHolding(pointer) { engine throws(TocsinError) in
        try body(engine)
        return Int(TOCSIN_OK)
    }
}

/// As `count`, holding a strong reference for the call (see `statusHolding`).
@inline(__always)
func countHolding(_ pointer: OpaquePointer?, _ body: (TimerEngine) throws(TocsinError) -> Int) -> Int32 {
    guard let engine = engine(pointer) else { return Int32(TOCSIN_EINVAL) }
    do throws(TocsinError) {
        return Int32(clamping: try body(engine))
    } catch {
        return error.code
    }
}

@_cdecl("tocsin_engine_new")
public func tocsin_engine_new(_ flags: UInt32, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    let delivery: TimerEngine.Delivery
    switch Int(flags) {
    case TOCSIN_ENGINE_DEFAULT: delivery = .engineThread
    case TOCSIN_ENGINE_POLLED: delivery = .polled
    case TOCSIN_ENGINE_MANUAL_CLOCK: delivery = .manualClock
    default: return Int32(TOCSIN_EINVAL)
    }
    do {
        let engine = try TimerEngine(delivery: delivery)
        out.pointee = OpaquePointer(Unmanaged.passRetained(engine).toOpaque())
        return Int32(TOCSIN_OK)
    } catch {
        return error.code
    }
}

@_cdecl("tocsin_engine_free")
public func tocsin_engine_free(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    let unmanaged = Unmanaged<TimerEngine>.fromOpaque(UnsafeRawPointer(pointer))
    unmanaged.takeUnretainedValue().close()
    unmanaged.release()
}

@_cdecl("tocsin_engine_close")
public func tocsin_engine_close(_ pointer: OpaquePointer?) {
    engine(pointer)?.close()
}

@_cdecl("tocsin_engine_fd")
public func tocsin_engine_fd(_ pointer: OpaquePointer?) -> Int32 {
    count(pointer) { core throws(TocsinError) in Int(try core.pollFileDescriptor()) }
}

@_cdecl("tocsin_engine_dispatch")
public func tocsin_engine_dispatch(_ pointer: OpaquePointer?) -> Int32 {
    countHolding(pointer) { engine throws(TocsinError) in try engine.dispatch() }
}

@_cdecl("tocsin_engine_advance")
public func tocsin_engine_advance(_ pointer: OpaquePointer?, _ seconds: Double) -> Int32 {
    countHolding(pointer) { engine throws(TocsinError) in
        guard let step = Nanos.from(seconds: seconds) else { throw .invalidArgument }
        return try engine.advance(nanoseconds: step)
    }
}

@_cdecl("tocsin_engine_now")
public func tocsin_engine_now(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    guard let out else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        out.pointee = Nanos.seconds(try core.nowNanoseconds())
    }
}

@_cdecl("tocsin_engine_add_observer")
public func tocsin_engine_add_observer(
    _ pointer: OpaquePointer?, _ callback: tocsin_callback?, _ userData: UnsafeMutableRawPointer?,
    _ out: UnsafeMutablePointer<tocsin_observer>?
) -> Int32 {
    status(pointer) { core throws(TocsinError) in
        guard let callback else { throw .invalidArgument }
        let observer = try core.addObserver(callback: callback, context: userData)
        out?.pointee = observer.rawValue
    }
}

@_cdecl("tocsin_engine_remove_observer")
public func tocsin_engine_remove_observer(_ pointer: OpaquePointer?, _ observer: tocsin_observer) -> Int32 {
    statusHolding(pointer) { engine throws(TocsinError) in
        guard try engine.removeObserver(ObserverID(rawValue: observer)) else { throw .noSuchTimer }  // the header's ENOENT
    }
}

@_cdecl("tocsin_engine_timers")
public func tocsin_engine_timers(
    _ pointer: OpaquePointer?, _ buffer: UnsafeMutablePointer<tocsin_timer>?, _ capacity: Int
) -> Int32 {
    if buffer == nil && capacity != 0 { return Int32(TOCSIN_EINVAL) }
    let capacity = capacity < 0 ? Int.max : capacity  // a size_t above Int.max
    return count(pointer) { core throws(TocsinError) in
        let timers = try core.timers()
        if let buffer {
            for (index, timer) in timers.prefix(capacity).enumerated() { buffer[index] = timer.rawValue }
        }
        return timers.count
    }
}

@_cdecl("tocsin_engine_save")
public func tocsin_engine_save(_ pointer: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    guard let path else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in try core.save(to: String(cString: path)) }
}

@_cdecl("tocsin_engine_load")
public func tocsin_engine_load(
    _ pointer: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ restoredOut: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let path else { return Int32(TOCSIN_EINVAL) }
    return status(pointer) { core throws(TocsinError) in
        let restored = try core.load(from: String(cString: path))
        restoredOut?.pointee = restored.count
    }
}

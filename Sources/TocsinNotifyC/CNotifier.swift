// The C ABI of include/tocsin_notify.h over TocsinNotify's Notifier. No
// Swift error or trap crosses this boundary: failures are TOCSIN_E* codes.
public import CTocsinNotify
import CTocsin
import Glibc
import TocsinBase
import TocsinDesktop

/// What a `tocsin_notifier *` points to: the notifier and the C engines it
/// follows (one host per engine pointer, so buttons reach the right engine).
///
/// `@unchecked Sendable`: `hosts` and the callback are guarded by `lock`.
final class CNotifier: @unchecked Sendable {
    let notifier: Notifier
    private let lock = TocsinLock()
    private var hosts: [UInt: CEngineHost] = [:]
    private var callback: tocsin_notify_callback?
    private var userData: UnsafeMutableRawPointer?

    init(quiet: Bool) throws(TocsinError) {
        notifier = try Notifier(options: .init(quiet: quiet))
        let me = Unmanaged.passUnretained(self)  // the notifier dies with us
        notifier.setReportHandler { report in me.takeUnretainedValue().forward(report) }
    }

    /// The host for an engine pointer, made on first use.
    func host(for engine: OpaquePointer, _ functions: EngineFunctions) -> CEngineHost {
        lock.lock()
        defer { lock.unlock() }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(engine)))
        if let host = hosts[address] { return host }
        let host = CEngineHost(engine, functions)
        hosts[address] = host
        return host
    }

    func existingHost(for engine: OpaquePointer) -> CEngineHost? {
        lock.lock()
        defer { lock.unlock() }
        return hosts[UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(engine)))]
    }

    func removeHost(for engine: OpaquePointer) -> CEngineHost? {
        lock.lock()
        defer { lock.unlock() }
        return hosts.removeValue(forKey: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(engine))))
    }

    func setCallback(_ callback: tocsin_notify_callback?, _ userData: UnsafeMutableRawPointer?) {
        lock.lock()
        self.callback = callback
        self.userData = userData
        lock.unlock()
    }

    private func forward(_ report: NotifierReport) {
        lock.lock()
        let (callback, userData) = (self.callback, self.userData)
        let engine = report.host.flatMap { id in hosts.values.first { ObjectIdentifier($0) == id }?.engine }
        lock.unlock()
        guard let callback else { return }
        report.detail.withCString { detail in
            var cReport = tocsin_notify_report(
                kind: report.kind.rawValue, status: report.error?.code ?? 0, engine: engine,
                timer: report.timer?.rawValue ?? 0, detail: detail, new_timer: report.newTimer?.rawValue ?? 0)
            callback(OpaquePointer(Unmanaged.passUnretained(self).toOpaque()), &cReport, userData)
        }
    }
}

@inline(__always)
private func cNotifier(_ pointer: OpaquePointer?) -> CNotifier? {
    pointer.map { Unmanaged<CNotifier>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

/// Runs `body` and maps its outcome to a status code.
private func status(_ pointer: OpaquePointer?, _ body: (CNotifier) throws(TocsinError) -> Int32) -> Int32 {
    guard let notifier = cNotifier(pointer) else { return Int32(TOCSIN_EINVAL) }
    do {
        return try body(notifier)
    } catch {
        return error.code
    }
}

/// A C alert as a Swift `Alert`; nil pointer: the defaults.
func alert(from pointer: UnsafePointer<tocsin_alert>?) throws(TocsinError) -> Alert {
    guard let pointer else { return Alert() }
    // 0.4's struct ended before warn_seconds, 0.6's before snooze_seconds,
    // 0.8's before notice_seconds, the next before media: their callers
    // still work. Only whole
    // fields are read; the ones a smaller struct lacks stay zero.
    let fieldEnds = [tocsin_alert_end_0_4(), tocsin_alert_warn_sound_offset(), tocsin_alert_end_0_6(),
                     tocsin_alert_end_0_8(), tocsin_alert_end_notice(), MemoryLayout<tocsin_alert>.size]
    guard let readable = fieldEnds.last(where: { $0 <= pointer.pointee.size }) else { throw .invalidArgument }
    var raw = tocsin_alert()
    withUnsafeMutableBytes(of: &raw) { destination in
        destination.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: readable))
    }
    func text(_ string: UnsafePointer<CChar>?) throws(TocsinError) -> String? {
        guard let string else { return nil }
        guard let decoded = String(validatingCString: string) else { throw .invalidArgument }
        return decoded
    }
    let known = UInt32(TOCSIN_ALERT_NO_POPUP | TOCSIN_ALERT_NO_SOUND | TOCSIN_ALERT_NO_ACTIONS
                       | TOCSIN_ALERT_LIVE | TOCSIN_ALERT_NO_WARN_SOUND | TOCSIN_ALERT_PAUSE_MEDIA)
    // The limits are the alarm settings' (0: none, for each).
    func fits(_ seconds: Double, _ field: AlarmSettings.Field) -> Bool {
        guard seconds != 0 else { return true }
        guard let nanoseconds = Nanos.from(seconds: seconds), let limits = field.limits else { return false }  // (NaN, < 0)
        return limits.range.contains(nanoseconds)
    }
    guard raw.flags & ~known == 0, fits(raw.repeat_seconds, .ring), fits(raw.warn_seconds, .warn),
          fits(raw.snooze_seconds, .snooze), fits(raw.fade_seconds, .fade), fits(raw.notice_seconds, .notice),
          Alert.volumeRange.contains(raw.volume_db),
          (Int32(TOCSIN_MEDIA_NONE)...Int32(TOCSIN_MEDIA_STOP)).contains(raw.media)
    else { throw .invalidArgument }
    let soundFile = try text(raw.sound_file)
    if let soundFile, Alert.problem(withSoundFile: soundFile) != nil { throw .invalidArgument }
    let urgency: Alert.Urgency
    switch Int(raw.urgency) {
    case TOCSIN_URGENCY_CRITICAL: urgency = .critical
    case TOCSIN_URGENCY_NORMAL: urgency = .normal
    case TOCSIN_URGENCY_LOW: urgency = .low
    default: throw .invalidArgument
    }
    var alert = Alert(
        summary: try text(raw.summary), body: try text(raw.body), icon: try text(raw.icon) ?? "appointment-soon",
        urgency: urgency, sound: try text(raw.sound) ?? Alert.defaultSound,
        mediaRole: try text(raw.media_role) ?? "alarm",
        repeatSound: raw.repeat_seconds > 0 ? .milliseconds(Int64(raw.repeat_seconds * 1000)) : nil,
        popup: raw.flags & UInt32(TOCSIN_ALERT_NO_POPUP) == 0,
        actions: raw.flags & UInt32(TOCSIN_ALERT_NO_ACTIONS) == 0,
        live: raw.flags & UInt32(TOCSIN_ALERT_LIVE) != 0,
        warning: raw.warn_seconds > 0 ? .nanoseconds(Nanos.saturating(seconds: raw.warn_seconds)) : nil,
        warningSound: try text(raw.warn_sound) ?? Alert.defaultWarningSound,
        snooze: raw.snooze_seconds > 0 ? .nanoseconds(Nanos.saturating(seconds: raw.snooze_seconds)) : nil,
        soundFile: soundFile, volume: raw.volume_db,
        fade: raw.fade_seconds > 0 ? .nanoseconds(Nanos.saturating(seconds: raw.fade_seconds)) : nil,
        pausesMedia: raw.flags & UInt32(TOCSIN_ALERT_PAUSE_MEDIA) != 0)
    if raw.flags & UInt32(TOCSIN_ALERT_NO_SOUND) != 0 { alert.sound = nil }
    if raw.flags & UInt32(TOCSIN_ALERT_NO_WARN_SOUND) != 0 { alert.warningSound = nil }
    if raw.notice_seconds > 0 { alert.notice = .nanoseconds(Nanos.saturating(seconds: raw.notice_seconds)) }
    alert.media = switch raw.media {
    case Int32(TOCSIN_MEDIA_PAUSE): .pause
    case Int32(TOCSIN_MEDIA_STOP): .stop
    default: nil
    }
    return alert
}

@_cdecl("tocsin_notify_new")
public func tocsin_notify_new(_ flags: UInt32, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out, flags & ~UInt32(TOCSIN_NOTIFY_QUIET) == 0 else { return Int32(TOCSIN_EINVAL) }
    do {
        let notifier = try CNotifier(quiet: flags & UInt32(TOCSIN_NOTIFY_QUIET) != 0)
        out.pointee = OpaquePointer(Unmanaged.passRetained(notifier).toOpaque())
        return Int32(TOCSIN_OK)
    } catch {
        return error.code
    }
}

@_cdecl("tocsin_notify_free")
public func tocsin_notify_free(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    let unmanaged = Unmanaged<CNotifier>.fromOpaque(UnsafeRawPointer(pointer))
    unmanaged.takeUnretainedValue().notifier.close()
    unmanaged.release()
}

@_cdecl("tocsin_notify_set_callback")
public func tocsin_notify_set_callback(
    _ pointer: OpaquePointer?, _ callback: tocsin_notify_callback?, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    status(pointer) { notifier in
        notifier.setCallback(callback, userData)
        return Int32(TOCSIN_OK)
    }
}

@_cdecl("tocsin_notify_attach")
public func tocsin_notify_attach(
    _ pointer: OpaquePointer?, _ engine: OpaquePointer?, _ timer: tocsin_timer, _ cAlert: UnsafePointer<tocsin_alert>?
) -> Int32 {
    status(pointer) { notifier throws(TocsinError) in
        guard let engine else { throw .invalidArgument }
        let alert = try alert(from: cAlert)
        guard let functions = EngineFunctions.shared else { throw .unavailable }
        let state = functions.state(engine, timer)  // before a host is made: a refused call leaves none
        guard state >= 0 else { throw TocsinError(code: state) }
        try notifier.notifier.core.attach(timer, host: notifier.host(for: engine, functions), alert: alert)
        return Int32(TOCSIN_OK)
    }
}

@_cdecl("tocsin_notify_detach")
public func tocsin_notify_detach(_ pointer: OpaquePointer?, _ engine: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    onAlert(pointer, engine, timer) { core, key in core.detach(key) }
}

@_cdecl("tocsin_notify_forget_engine")
public func tocsin_notify_forget_engine(_ pointer: OpaquePointer?, _ engine: OpaquePointer?) -> Int32 {
    status(pointer) { notifier throws(TocsinError) in
        guard let engine else { throw .invalidArgument }
        if let host = notifier.removeHost(for: engine) {
            notifier.notifier.core.forgetHost(ObjectIdentifier(host))
        }
        return Int32(TOCSIN_OK)
    }
}

@_cdecl("tocsin_notify_stop")
public func tocsin_notify_stop(_ pointer: OpaquePointer?, _ engine: OpaquePointer?, _ timer: tocsin_timer) -> Int32 {
    onAlert(pointer, engine, timer) { core, key in core.stop(key) }
}

/// Detach and stop: `action` on the alert of `timer` of `engine`;
/// `TOCSIN_ENOENT` (no such timer) when it has none.
private func onAlert(
    _ pointer: OpaquePointer?, _ engine: OpaquePointer?, _ timer: tocsin_timer, _ action: (NotifierCore, AlertKey) -> Bool
) -> Int32 {
    status(pointer) { notifier throws(TocsinError) in
        guard let engine else { throw .invalidArgument }
        guard let host = notifier.existingHost(for: engine),
              action(notifier.notifier.core, AlertKey(host: ObjectIdentifier(host), timer: timer))
        else { throw .noSuchTimer }
        return Int32(TOCSIN_OK)
    }
}

@_cdecl("tocsin_notify_set_live_limit")
public func tocsin_notify_set_live_limit(_ pointer: OpaquePointer?, _ count: Int32) -> Int32 {
    status(pointer) { notifier throws(TocsinError) in
        try notifier.notifier.setLiveLimit(Int(count))
        return Int32(TOCSIN_OK)
    }
}

@_cdecl("tocsin_notify_show")
public func tocsin_notify_show(_ pointer: OpaquePointer?, _ cAlert: UnsafePointer<tocsin_alert>?) -> Int32 {
    status(pointer) { notifier throws(TocsinError) in
        notifier.notifier.show(try alert(from: cAlert))
        return Int32(TOCSIN_OK)
    }
}

@_cdecl("tocsin_notify_flush")
public func tocsin_notify_flush(_ pointer: OpaquePointer?, _ seconds: Double) -> Int32 {
    status(pointer) { notifier throws(TocsinError) in
        guard seconds.isFinite, seconds >= 0, seconds <= 3600 else { throw .invalidArgument }
        return notifier.notifier.flush(timeout: .milliseconds(Int64(seconds * 1000))) ? 0 : 1
    }
}

@_cdecl("tocsin_notify_diagnose")
public func tocsin_notify_diagnose(
    _ pointer: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int32 {
    if buffer == nil && capacity != 0 { return Int32(TOCSIN_EINVAL) }
    let capacity = capacity < 0 ? Int.max : capacity
    return status(pointer) { notifier in
        Int32(clamping: notifier.notifier.diagnose().description.copyTruncated(into: buffer, capacity: capacity))
    }
}

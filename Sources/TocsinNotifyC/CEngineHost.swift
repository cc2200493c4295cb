import CTocsin
import Glibc
import TocsinNotify

/// The functions of the libtocsin.so.0 loaded in this process. The notifier
/// library does not link the engine in: it must drive the very engines the
/// host created, so it finds the host's copy by its soname.
struct EngineFunctions: @unchecked Sendable {
    typealias Start = @convention(c) (OpaquePointer?, UInt64) -> Int32
    typealias CountdownNew = @convention(c) (OpaquePointer?, Double, UnsafeMutablePointer<UInt64>?) -> Int32
    typealias SetLabel = @convention(c) (OpaquePointer?, UInt64, UnsafePointer<CChar>?) -> Int32
    typealias Label = @convention(c) (OpaquePointer?, UInt64, UnsafeMutablePointer<CChar>?, Int) -> Int32
    typealias AddObserver = @convention(c) (
        OpaquePointer?, tocsin_callback?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt64>?
    ) -> Int32
    typealias RemoveObserver = @convention(c) (OpaquePointer?, UInt64) -> Int32

    let start: Start
    let state: Start
    let countdownNew: CountdownNew
    let setLabel: SetLabel
    let label: Label
    let addObserver: AddObserver
    let removeObserver: RemoveObserver

    /// Loaded once; nil if libtocsin.so.0 cannot be found.
    static let shared: EngineFunctions? = load()

    private static func load() -> EngineFunctions? {
        let library = dlopen("libtocsin.so.0", RTLD_NOW | RTLD_NOLOAD) ?? dlopen("libtocsin.so.0", RTLD_NOW)
        guard let library else { return nil }
        func symbol<F>(_ name: String, as type: F.Type) -> F? {
            dlsym(library, name).map { unsafeBitCast($0, to: type) }
        }
        guard let start = symbol("tocsin_timer_start", as: Start.self),
              let state = symbol("tocsin_timer_state", as: Start.self),
              let countdownNew = symbol("tocsin_countdown_new", as: CountdownNew.self),
              let setLabel = symbol("tocsin_timer_set_label", as: SetLabel.self),
              let label = symbol("tocsin_timer_label", as: Label.self),
              let addObserver = symbol("tocsin_engine_add_observer", as: AddObserver.self),
              let removeObserver = symbol("tocsin_engine_remove_observer", as: RemoveObserver.self)
        else { return nil }
        return EngineFunctions(
            start: start, state: state, countdownNew: countdownNew, setLabel: setLabel, label: label,
            addObserver: addObserver, removeObserver: removeObserver)
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
        var buffer = [CChar](repeating: 0, count: 4097)
        guard functions.label(engine, timer, &buffer, buffer.count) >= 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func start(_ timer: UInt64) -> Bool {
        functions.start(engine, timer) == 0
    }

    func makeCountdown(like timer: UInt64, seconds: Double) -> UInt64? {
        var fresh: UInt64 = 0
        guard functions.countdownNew(engine, seconds, &fresh) == 0 else { return nil }
        _ = functions.setLabel(engine, fresh, label(of: timer))
        return fresh
    }

    func observe(_ handler: @escaping @Sendable (UInt64, HostEvent) -> Void) -> Bool {
        self.handler = handler
        let me = Unmanaged.passUnretained(self).toOpaque()
        var id: UInt64 = 0
        let status = functions.addObserver(engine, { _, event, raw in
            guard let event = event?.pointee, let raw else { return }
            let host = Unmanaged<CEngineHost>.fromOpaque(raw).takeUnretainedValue()
            switch (event.kind, event.state) {
            case (Int32(TOCSIN_EVENT_FINISH), _): host.handler?(event.timer, .finished)
            case (Int32(TOCSIN_EVENT_STATE), Int32(TOCSIN_RUNNING)): host.handler?(event.timer, .running)
            case (Int32(TOCSIN_EVENT_STATE), Int32(TOCSIN_CANCELED)): host.handler?(event.timer, .canceled)
            default: break
            }
        }, me, &id)
        observer = status == 0 ? id : 0
        return status == 0
    }

    func stopObserving() {
        // After this returns the observer is not running: the host may be freed.
        if observer != 0 { _ = functions.removeObserver(engine, observer) }
        observer = 0
        handler = nil
    }
}

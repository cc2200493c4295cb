import CGio

/// The service's methods in one table, each with who may call it: `execute`
/// runs a call from it, the turns take their reads from it, and the
/// ownership check and a sandboxed app's refusals come from its access.
/// A method the table lacks is refused to everyone (a test compares the
/// table with the interface's XML).
extension ServiceBus {
    /// What a method reaches, which decides who may call it.
    enum Access: Sendable, CaseIterable {
        /// Reads the timers the caller may see (an app: its own).
        case reads
        /// Subscribes the caller to the signals of the timers it may see.
        case subscribes
        /// Makes a timer the caller owns.
        case creates
        /// Acts on the timer its first argument (`t`) names: an app on its own only.
        case actsOnTimer
        /// Reaches beyond any timer (the service's lifetime): the user only.
        case serviceWide

        /// Answered between rounds, from what is saved (`ServiceBus+Turns`).
        var onlyReads: Bool {
            switch self {
            case .reads, .subscribes: true
            case .creates, .actsOnTimer, .serviceWide: false
            }
        }

        /// Why a sandboxed app may not make such a call; nil if it may.
        func refusal(of method: String, to app: String) -> String? {
            switch self {
            case .reads, .subscribes, .creates, .actsOnTimer: nil
            case .serviceWide: "\(method) reaches beyond \(app)'s timers: a sandboxed app may not call it"
            }
        }
    }

    /// A call in progress: its arguments, read through `child` (each a
    /// reference released when the call ends), and who made it.
    struct Call {
        let bus: ServiceBus
        let invocation: OpaquePointer
        let parameters: OpaquePointer
        let caller: Caller

        func child(_ index: Int) -> OpaquePointer { bus.child(parameters, index) }
        var id: UInt64 { UInt64(g_variant_get_uint64(child(0))) }
        func double(_ index: Int) -> Double { g_variant_get_double(child(index)) }
        var sender: String { g_dbus_method_invocation_get_sender(invocation).map { String(cString: $0) } ?? "" }
    }

    struct Method: Sendable {
        let access: Access
        /// Runs the call; the reply's values (an empty tuple: none).
        let run: @Sendable (Call) throws(ServiceError) -> Reply
    }

    /// Every method of `dev.tocsin.Timers1`.
    static let methods: [String: Method] = [
        "Add": Method(access: .creates) { call throws(ServiceError) in
            let options = try Variant.options(call.child(2))
            let id = try call.bus.service.add(
                label: String(cString: g_variant_get_string(call.child(0), nil)), seconds: call.double(1),
                options: options, caller: call.caller)
            return .values(Variant.tuple([g_variant_new_uint64(guint64(id))]))
        },
        "Pause": timerMethod { service, call throws(ServiceError) in try service.pause(call.id) },
        "Resume": timerMethod { service, call throws(ServiceError) in try service.resume(call.id) },
        "Cancel": timerMethod { service, call throws(ServiceError) in try service.cancel(call.id) },
        "Restart": timerMethod { service, call throws(ServiceError) in try service.restart(call.id) },
        "Remove": timerMethod { service, call throws(ServiceError) in try service.remove(call.id) },
        "Adjust": timerMethod { service, call throws(ServiceError) in try service.adjust(call.id, by: call.double(1)) },
        "Snooze": timerMethod { service, call throws(ServiceError) in try service.snooze(call.id, seconds: call.double(1)) },
        "Skip": timerMethod { service, call throws(ServiceError) in
            try service.skip(call.id, count: UInt32(g_variant_get_uint32(call.child(1))))
        },
        "SkipUntil": timerMethod { service, call throws(ServiceError) in try service.skip(call.id, until: call.double(1)) },
        "Lap": Method(access: .actsOnTimer) { call throws(ServiceError) in
            .values(Variant.tuple([g_variant_new_double(try call.bus.service.lap(call.id))]))
        },
        "List": Method(access: .reads) { call in
            .values(Variant.serialized(call.bus.service.serializedList(for: call.caller), type: "(aa{sv})"))
        },
        "ListColumns": Method(access: .reads) { call throws(ServiceError) in
            var count: gsize = 0
            let names = g_variant_get_strv(call.child(0), &count)
            defer { g_free(names) }
            let requested = (0..<Int(count)).compactMap { names?[$0].map { String(cString: $0) } }
            return .values(Variant.tuple([Variant.columns(try call.bus.service.table(requested, for: call.caller))]))
        },
        "Subscribe": Method(access: .subscribes) { call throws(ServiceError) in
            try call.bus.subscribe(call.sender, as: call.caller)
            return .values(Variant.tuple([]))
        },
        "Watch": Method(access: .serviceWide) { call throws(ServiceError) in
            try call.bus.subscribe(call.sender, as: call.caller)
            call.bus.watch(call.sender)
            return .values(Variant.tuple([]))
        },
    ]

    /// A method on the timer its first argument names, with no reply values.
    private static func timerMethod(_ body: @escaping @Sendable (TimerService, Call) throws(ServiceError) -> Void) -> Method {
        Method(access: .actsOnTimer) { call throws(ServiceError) in
            try body(call.bus.service, call)
            return .values(Variant.tuple([]))
        }
    }

    /// The method's access; nil for one the table lacks.
    static func access(of method: String) -> Access? { methods[method]?.access }

    /// Runs one call of `caller` (in `ServiceBus+Turns`' order) and says
    /// its answer, which is sent once what it changed is saved.
    func execute(_ name: String, _ invocation: OpaquePointer, as caller: Caller) -> Reply {
        defer {
            for value in held { g_variant_unref(value) }
            held = []
        }
        do throws(ServiceError) {
            guard let method = Self.methods[name] else {
                throw ServiceError(caller.app == nil ? .invalidArgument : .notPermitted, "no method \(name)")
            }
            if let app = caller.app, let refusal = method.access.refusal(of: name, to: app) {
                throw ServiceError(.notPermitted, refusal)
            }
            guard let parameters = g_dbus_method_invocation_get_parameters(invocation) else {
                throw ServiceError(.invalidArgument, "a call without arguments")  // (GDBus gives an empty tuple)
            }
            let call = Call(bus: self, invocation: invocation, parameters: parameters, caller: caller)
            if method.access == .actsOnTimer { try service.authorize(call.id, for: caller) }
            return try method.run(call)
        } catch {
            return .error(error)
        }
    }
}

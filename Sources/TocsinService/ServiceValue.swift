/// A value of a timer's properties as the bus carries it (`a{sv}`), kept
/// free of D-Bus so that the service's rules can be tested without a bus.
package enum ServiceValue: Equatable, Sendable {
    case id(UInt64)
    case number(Double)
    case text(String)
    case flag(Bool)
    case numbers([Double])
}

/// A failure of a service call: its D-Bus error name's last part and the
/// engine's message.
package struct ServiceError: Error, Equatable {
    package enum Kind: String, Sendable {
        case noSuchTimer = "NoSuchTimer"
        case invalidArgument = "InvalidArgument"
        case wrongState = "WrongState"
        case failed = "Failed"
        /// A limit of the service's (`TimerService.Limits`) is reached.
        case limitReached = "LimitReached"
        /// The caller may not make calls (another user's program), or a
        /// sandboxed app named a timer it did not make.
        case notPermitted = "NotPermitted"
    }

    package var kind: Kind
    package var message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The D-Bus error name, e.g. `dev.tocsin.Timers1.Error.NoSuchTimer`.
    package var name: String { "dev.tocsin.Timers1.Error.\(kind.rawValue)" }
}

import CTocsin

/// A failed engine call. `code` is the C API's negative `TOCSIN_E*` value,
/// and `description` the text `tocsin_strerror` gives for it.
public struct TocsinError: Error, Hashable, Sendable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) {
        self.code = code
    }

    /// NaN, negative, zero or too large time; a bad label; a bad mode.
    public static let invalidArgument = TocsinError(code: Int32(TOCSIN_EINVAL))
    /// The handle was freed, never existed, or belongs to another engine.
    public static let noSuchTimer = TocsinError(code: Int32(TOCSIN_ENOENT))
    /// The call is not allowed in the timer's state or the engine's mode.
    public static let wrongState = TocsinError(code: Int32(TOCSIN_ESTATE))
    /// Out of memory, or the engine holds `TOCSIN_TIMERS_MAX` timers.
    public static let outOfMemory = TocsinError(code: Int32(TOCSIN_ENOMEM))
    /// A system call failed (kernel timer, engine thread).
    public static let io = TocsinError(code: Int32(TOCSIN_EIO))
    /// Corrupt or unsupported data.
    public static let corrupt = TocsinError(code: Int32(TOCSIN_ECORRUPT))
    /// The engine is closed.
    public static let closed = TocsinError(code: Int32(TOCSIN_ECLOSED))
    /// A desktop service is missing: session bus, notification or sound server.
    public static let unavailable = TocsinError(code: Int32(TOCSIN_EUNAVAILABLE))
    /// A calendar spec has no occurrence after the time asked (since 0.6).
    public static let outOfRange = TocsinError(code: Int32(TOCSIN_ERANGE))

    /// The C name of the code, e.g. "TOCSIN_EINVAL".
    public var name: String { String(cString: tocsin_err_name(code)) }

    public var description: String { String(cString: tocsin_strerror(code)) }
}

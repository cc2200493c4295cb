//! [`Error`]: every failure of a call, with the library's own text.

use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_int;

use tocsin_sys as sys;

/// A failed call. Each variant is one of the library's status codes
/// (`TOCSIN_E*` in tocsin.h) and carries a message that names the call, the
/// value or the timer at fault, and ends with the library's text for the
/// code (`tocsin_strerror`) and its name (`tocsin_err_name`):
/// `"countdown: seconds must be finite, above 0 and at most 3155760000, got NaN
/// (TOCSIN_EINVAL: invalid argument)"`.
///
/// Errors are plain values: `Send`, `Sync`, and safe to keep after the
/// engine is gone.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// `TOCSIN_EINVAL`: NaN, negative, zero or too large seconds, a bad
    /// label (interior NUL, over 4096 bytes), a calendar spec that does not
    /// parse, a call a timer of this kind does not take.
    InvalidArgument(String),
    /// `TOCSIN_ENOENT`: the timer was freed, never existed, or belongs to
    /// another engine.
    NoSuchTimer(String),
    /// `TOCSIN_ESTATE`: not allowed in the timer's state (resume while
    /// running) or the engine's mode (dispatch from inside a callback).
    WrongState(String),
    /// `TOCSIN_ENOMEM`: out of memory, or the engine holds the most timers it can.
    OutOfMemory(String),
    /// `TOCSIN_EIO`: a system call failed (kernel timer, thread, file); the
    /// `std::io::Error` of its errno is the [`source`](std::error::Error::source).
    Io(String, std::io::Error),
    /// `TOCSIN_ECORRUPT`: a saved file that is truncated, corrupt or of a future version.
    Corrupt(String),
    /// `TOCSIN_ECLOSED`: the engine was dropped or closed.
    Closed(String),
    /// `TOCSIN_EUNAVAILABLE`: not available here (no desktop session, no tokio runtime).
    Unavailable(String),
    /// `TOCSIN_ERANGE`: the calendar spec has no occurrence after that time.
    NoOccurrence(String),
    /// A status code this crate does not know (a newer library).
    Unknown(i32, String),
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The C status code: a negative `TOCSIN_E*` value.
    pub fn code(&self) -> i32 {
        match self {
            Error::InvalidArgument(_) => sys::TOCSIN_EINVAL,
            Error::NoSuchTimer(_) => sys::TOCSIN_ENOENT,
            Error::WrongState(_) => sys::TOCSIN_ESTATE,
            Error::OutOfMemory(_) => sys::TOCSIN_ENOMEM,
            Error::Io(..) => sys::TOCSIN_EIO,
            Error::Corrupt(_) => sys::TOCSIN_ECORRUPT,
            Error::Closed(_) => sys::TOCSIN_ECLOSED,
            Error::Unavailable(_) => sys::TOCSIN_EUNAVAILABLE,
            Error::NoOccurrence(_) => sys::TOCSIN_ERANGE,
            Error::Unknown(code, _) => *code,
        }
    }

    /// The code's name, as `tocsin_err_name` gives it: `"TOCSIN_EINVAL"`.
    pub fn name(&self) -> &'static str {
        err_name(self.code())
    }

    /// The whole message (as `Display` prints it).
    pub fn message(&self) -> &str {
        match self {
            Error::InvalidArgument(m)
            | Error::NoSuchTimer(m)
            | Error::WrongState(m)
            | Error::OutOfMemory(m)
            | Error::Io(m, _)
            | Error::Corrupt(m)
            | Error::Closed(m)
            | Error::Unavailable(m)
            | Error::NoOccurrence(m)
            | Error::Unknown(_, m) => m,
        }
    }

    /// The error of status `code` (negative) from `call`, with `detail`
    /// (what was wrong, in words) before the library's text.
    pub(crate) fn new(code: c_int, call: &str, detail: Option<&str>) -> Error {
        let text = strerror(code);
        let name = err_name(code);
        let message = match detail {
            Some(detail) => format!("{call}: {detail} ({name}: {text})"),
            None => format!("{call}: {text} ({name})"),
        };
        match code {
            sys::TOCSIN_EINVAL => Error::InvalidArgument(message),
            sys::TOCSIN_ENOENT => Error::NoSuchTimer(message),
            sys::TOCSIN_ESTATE => Error::WrongState(message),
            sys::TOCSIN_ENOMEM => Error::OutOfMemory(message),
            sys::TOCSIN_EIO => Error::Io(message, std::io::Error::new(std::io::ErrorKind::Other, text)),
            sys::TOCSIN_ECORRUPT => Error::Corrupt(message),
            sys::TOCSIN_ECLOSED => Error::Closed(message),
            sys::TOCSIN_EUNAVAILABLE => Error::Unavailable(message),
            sys::TOCSIN_ERANGE => Error::NoOccurrence(message),
            other => Error::Unknown(other, message),
        }
    }

    /// `TOCSIN_EIO` from a call on a file, with errno's `io::Error` (read
    /// right after the call).
    pub(crate) fn io(call: &str, path: &std::path::Path, os: std::io::Error) -> Error {
        let message = format!(
            "{call}: {os}: {} ({}: {})",
            path.display(),
            err_name(sys::TOCSIN_EIO),
            strerror(sys::TOCSIN_EIO)
        );
        Error::Io(message, os)
    }
}

/// Turns a status into `Ok(status)` (>= 0) or the error of `call`.
#[inline]
pub(crate) fn check(status: c_int, call: &str) -> Result<c_int> {
    if status >= 0 {
        Ok(status)
    } else {
        Err(Error::new(status, call, None))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(_, os) => Some(os),
            _ => None,
        }
    }
}

/// `tocsin_strerror(code)`.
pub(crate) fn strerror(code: c_int) -> &'static str {
    // SAFETY: tocsin_strerror takes any int and returns a static,
    // NUL-terminated ASCII string that must not be freed.
    let text = unsafe { CStr::from_ptr(sys::tocsin_strerror(code)) };
    text.to_str().unwrap_or("unknown error")
}

/// `tocsin_err_name(code)`.
pub(crate) fn err_name(code: c_int) -> &'static str {
    // SAFETY: as strerror: any int, a static string.
    let text = unsafe { CStr::from_ptr(sys::tocsin_err_name(code)) };
    text.to_str().unwrap_or("TOCSIN_UNKNOWN")
}

//! Calendar specs without an engine: [`calendar_next`], [`calendar_check`].

use std::ffi::CStr;

use tocsin_sys as sys;

use crate::engine::{c_string, read_string};
use crate::error::{Error, Result};
use crate::values::{shown, IntoUnixTime};

/// The next occurrence of `spec` (systemd's calendar syntax, as
/// [`Engine::calendar`](crate::Engine::calendar) takes it) strictly after
/// `after`, in seconds since 1970 (a whole number). Thread-safe; 0.2 to 1.1
/// µs. Errors: [`Error::InvalidArgument`] with the reason, for a spec that
/// does not parse or a time more than 10^11 s from 1970;
/// [`Error::NoOccurrence`] if none comes before the year 2200.
///
/// ```
/// // 2027-01-15 08:00 UTC is a Friday: the next weekday 09:30 is that day.
/// assert_eq!(tocsin::calendar_next("Mon..Fri 09:30 UTC", 1_800_000_000.0)?, 1_800_005_400.0);
/// # Ok::<(), tocsin::Error>(())
/// ```
pub fn calendar_next<T: IntoUnixTime>(spec: &str, after: T) -> Result<f64> {
    let after = after.into_unix_seconds();
    let text = c_string(spec, "calendar_next", "spec")?;
    let mut out = 0.0;
    // SAFETY: text NUL-terminated for the call; out a valid out-pointer.
    let status = unsafe { sys::tocsin_calendar_next(text.as_ptr(), after, &mut out) };
    match status {
        sys::TOCSIN_OK => Ok(out),
        sys::TOCSIN_EINVAL if after.is_finite() && after.abs() <= 1e11 => Err(Error::new(
            status,
            "calendar_next",
            Some(&format!("{spec:?}: {}", reason(&text))),
        )),
        sys::TOCSIN_EINVAL => {
            let detail = format!("the time must be within 10^11 s of 1970, got {}", shown(after));
            Err(Error::new(status, "calendar_next", Some(&detail)))
        }
        sys::TOCSIN_ERANGE => {
            let detail = format!("{spec:?} has no occurrence after {} before the year 2200", shown(after));
            Err(Error::new(status, "calendar_next", Some(&detail)))
        }
        other => Err(Error::new(other, "calendar_next", None)),
    }
}

/// Checks `spec` and returns its normalized form (`"Mon..Fri 07:00"` is
/// `"Mon..Fri *-*-* 07:00:00"`). Errors: [`Error::InvalidArgument`] whose
/// message gives the library's reason, naming the column where the fault
/// starts (`"column 1: 'Mun' is not a weekday, …"`).
pub fn calendar_check(spec: &str) -> Result<String> {
    let text = c_string(spec, "calendar_check", "spec")?;
    // SAFETY: text NUL-terminated; buf/cap a writable buffer (or NULL, 0).
    match read_string("calendar_check", |buf, cap| unsafe {
        sys::tocsin_calendar_check(text.as_ptr(), buf, cap)
    }) {
        Ok(normalized) => Ok(normalized),
        Err(Error::InvalidArgument(_)) => Err(Error::new(
            sys::TOCSIN_EINVAL,
            "calendar_check",
            Some(&format!("{spec:?}: {}", reason(&text))),
        )),
        Err(other) => Err(other),
    }
}

/// The library's reason why `spec` does not parse (256 bytes hold every one).
pub(crate) fn reason(spec: &CStr) -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: spec NUL-terminated; the buffer is writable for its length.
    unsafe { sys::tocsin_calendar_check(spec.as_ptr(), buffer.as_mut_ptr() as *mut _, buffer.len()) };
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

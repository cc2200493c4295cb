//! Desktop alerts (feature `notify`, libtocsin-notify.so): when an attached
//! timer finishes, a desktop notification and the alarm sound; live
//! notifications while it runs; a warning before zero. See
//! `tocsin_notify.h` for what each option does.
//!
//! ```no_run
//! let engine = tocsin::Engine::new()?;
//! let notifier = tocsin::notify::Notifier::new()?;
//! let tea = engine.countdown(180)?;
//! tea.set_label("Tea")?;
//! notifier.attach(&tea, &tocsin::notify::Alert { body: Some("Tea is ready".into()), ..Default::default() })?;
//! tea.start()?;
//! # Ok::<(), tocsin::Error>(())
//! ```

use std::ffi::{CStr, CString};
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tocsin_sys as sys;

use crate::engine::{c_string, read_string};
use crate::error::{check, Result};
use crate::inner::{lock, Inner};
use crate::{Timer, TimerId};

/// What an alert shows and plays; `None` and zero mean the library's
/// defaults (the timer's label, "Time is up", the `alarm-clock-elapsed`
/// sound). Times in seconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Alert {
    /// The notification's summary (default: the timer's label, or "Timer").
    pub summary: Option<String>,
    /// Its body (default: "Time is up").
    pub body: Option<String>,
    /// An icon name or path (default: "appointment-soon").
    pub icon: Option<String>,
    /// A sound theme id (default: "alarm-clock-elapsed").
    pub sound: Option<String>,
    /// PulseAudio's media.role (default: "alarm").
    pub media_role: Option<String>,
    /// > 0: the sound repeats until answered, for this long (at most 3600 s).
    pub repeat_seconds: f64,
    /// The alarm's urgency.
    pub urgency: Urgency,
    /// `sys::TOCSIN_ALERT_*` bits (LIVE, NO_SOUND, PAUSE_MEDIA, ...).
    pub flags: u32,
    /// > 0: a warning this long before zero (at most 86400 s).
    pub warn_seconds: f64,
    /// The warning's sound (default: "dialog-warning").
    pub warn_sound: Option<String>,
    /// > 0: the alarm's button snoozes this long (1 to 86400 s).
    pub snooze_seconds: f64,
    /// A sound file played instead of `sound`.
    pub sound_file: Option<String>,
    /// The alarm's volume in dB, -60 to +10 (0: as the sound is).
    pub volume_db: f64,
    /// > 0: the ring fades in over this long (at most 300 s).
    pub fade_seconds: f64,
    /// > 0: an alarm's upcoming-alarm notice this long before it rings.
    pub notice_seconds: f64,
}

/// An alert's urgency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Urgency {
    /// Stays until dismissed (the default).
    #[default]
    Critical,
    /// Normal.
    Normal,
    /// Low.
    Low,
}

/// A C `tocsin_alert` and the strings it points into.
struct CAlert {
    alert: sys::tocsin_alert,
    _strings: Vec<CString>,
}

impl Alert {
    fn to_c(&self, call: &str) -> Result<CAlert> {
        let mut strings = Vec::new();
        let mut text = |value: &Option<String>, what: &str| -> Result<*const std::os::raw::c_char> {
            match value {
                None => Ok(std::ptr::null()),
                Some(value) => {
                    let owned = c_string(value, call, what)?;
                    let ptr = owned.as_ptr(); // the CString's heap buffer does not move with it
                    strings.push(owned);
                    Ok(ptr)
                }
            }
        };
        let mut alert = sys::tocsin_alert::new(); // size = size_of::<tocsin_alert>()
        alert.summary = text(&self.summary, "summary")?;
        alert.body = text(&self.body, "body")?;
        alert.icon = text(&self.icon, "icon")?;
        alert.sound = text(&self.sound, "sound")?;
        alert.media_role = text(&self.media_role, "media_role")?;
        alert.warn_sound = text(&self.warn_sound, "warn_sound")?;
        alert.sound_file = text(&self.sound_file, "sound_file")?;
        alert.repeat_seconds = self.repeat_seconds;
        alert.urgency = match self.urgency {
            Urgency::Critical => sys::TOCSIN_URGENCY_CRITICAL,
            Urgency::Normal => sys::TOCSIN_URGENCY_NORMAL,
            Urgency::Low => sys::TOCSIN_URGENCY_LOW,
        };
        alert.flags = self.flags;
        alert.warn_seconds = self.warn_seconds;
        alert.snooze_seconds = self.snooze_seconds;
        alert.volume_db = self.volume_db;
        alert.fade_seconds = self.fade_seconds;
        alert.notice_seconds = self.notice_seconds;
        Ok(CAlert {
            alert,
            _strings: strings,
        })
    }
}

/// What happened to an alert, as the report closure gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// `sys::TOCSIN_REPORT_*`: shown, failed, sound, action, dismissed, ...
    pub kind: i32,
    /// 0, or `TOCSIN_EUNAVAILABLE` / `TOCSIN_EIO`.
    pub status: i32,
    /// The timer (None for [`Notifier::show`] alerts).
    pub timer: Option<TimerId>,
    /// The detail: a reason, a sound's id, a button's name.
    pub detail: String,
}

type ReportFn = Box<dyn Fn(&Report) + Send + Sync>;

/// A notifier: its threads (a GLib main loop, a sound player) and its
/// attached timers. `Send` and `Sync`; every method may be called from any
/// thread and from closures. Dropping it withdraws every alert and stops
/// its threads (do not drop it from its report closure).
pub struct Notifier {
    ptr: *mut sys::tocsin_notifier,
    /// Engines with attached timers: kept alive (not open) until the
    /// notifier is freed, as it keeps their pointers for its buttons.
    engines: Mutex<Vec<Arc<Inner>>>,
    /// The report closure, at a fixed address (the C user_data) until the
    /// notifier is freed.
    report: Option<Box<ReportFn>>,
}

// SAFETY: the notifier's functions may be called from any thread
// (tocsin_notify.h, THREADS); the report closure is Send + Sync; engines is
// behind a mutex.
unsafe impl Send for Notifier {}
// SAFETY: as for Send.
unsafe impl Sync for Notifier {}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}

impl Notifier {
    /// A notifier that writes each distinct desktop problem once to
    /// standard error. Succeeds without a desktop: problems show when an
    /// alert is due.
    pub fn new() -> Result<Notifier> {
        Notifier::make(0, None)
    }

    /// A quiet notifier (nothing on standard error) whose reports go to
    /// `report`, called on one of the notifier's threads.
    pub fn with_reports<F: Fn(&Report) + Send + Sync + 'static>(report: F) -> Result<Notifier> {
        Notifier::make(sys::TOCSIN_NOTIFY_QUIET, Some(Box::new(Box::new(report))))
    }

    fn make(flags: u32, report: Option<Box<ReportFn>>) -> Result<Notifier> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: ptr a valid out-pointer; freed once in Drop.
        check(unsafe { sys::tocsin_notify_new(flags, &mut ptr) }, "Notifier::new")?;
        let notifier = Notifier {
            ptr,
            engines: Mutex::new(Vec::new()),
            report,
        };
        if let Some(report) = &notifier.report {
            let user_data = &**report as *const ReportFn as *mut c_void;
            // SAFETY: user_data points to the boxed closure, which lives
            // until after tocsin_notify_free (Drop frees the notifier first).
            let status = unsafe { sys::tocsin_notify_set_callback(ptr, Some(on_report), user_data) };
            check(status, "Notifier::new")?;
        }
        Ok(notifier)
    }

    /// Alerts each time `timer` finishes (and, with flags or `warn_seconds`,
    /// while it runs), until detached; attaching again replaces the alert.
    /// Errors: [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a bad alert, [`Error::NoSuchTimer`](crate::Error::NoSuchTimer).
    pub fn attach(&self, timer: &Timer, alert: &Alert) -> Result<()> {
        let c = alert.to_c("attach")?;
        let inner = timer.inner();
        {
            let mut engines = lock(&self.engines);
            if !engines.iter().any(|engine| Arc::ptr_eq(engine, inner)) {
                engines.push(Arc::clone(inner));
            }
        }
        // SAFETY: both pointers valid; the alert and its strings live for the call.
        let status = unsafe { sys::tocsin_notify_attach(self.ptr, inner.ptr, timer.as_raw(), &c.alert) };
        check(status, "attach")?;
        Ok(())
    }

    /// Stops alerting for `timer` and withdraws its alert.
    pub fn detach(&self, timer: &Timer) -> Result<()> {
        // SAFETY: both pointers valid (the engine's is kept alive by timer).
        let status = unsafe { sys::tocsin_notify_detach(self.ptr, timer.inner().ptr, timer.as_raw()) };
        check(status, "detach").map(drop)
    }

    /// Silences and dismisses the timer's alert, as its Stop button does.
    pub fn stop(&self, timer: &Timer) -> Result<()> {
        // SAFETY: as in detach.
        let status = unsafe { sys::tocsin_notify_stop(self.ptr, timer.inner().ptr, timer.as_raw()) };
        check(status, "stop").map(drop)
    }

    /// How many live notifications show at once (0 to 1000; 3 by default).
    pub fn set_live_limit(&self, count: i32) -> Result<()> {
        // SAFETY: ptr valid.
        let status = unsafe { sys::tocsin_notify_set_live_limit(self.ptr, count) };
        check(status, "set_live_limit").map(drop)
    }

    /// Shows `alert` now, with no timer.
    pub fn show(&self, alert: &Alert) -> Result<()> {
        let c = alert.to_c("show")?;
        // SAFETY: ptr valid; the alert lives for the call.
        check(unsafe { sys::tocsin_notify_show(self.ptr, &c.alert) }, "show").map(drop)
    }

    /// Waits until every alert asked for so far is shown (or failed) and
    /// every sound ended, at most `timeout`. True if nothing is pending.
    pub fn flush(&self, timeout: Duration) -> Result<bool> {
        // SAFETY: ptr valid.
        let status = unsafe { sys::tocsin_notify_flush(self.ptr, timeout.as_secs_f64()) };
        Ok(check(status, "flush")? == 0)
    }

    /// What the desktop offers, one "topic: finding" line each (up to about
    /// 4 s when services do not answer).
    pub fn diagnose(&self) -> Result<String> {
        let ptr = self.ptr;
        // SAFETY: ptr valid; buf/cap a writable buffer (or NULL, 0).
        read_string("diagnose", |buf, cap| unsafe {
            sys::tocsin_notify_diagnose(ptr, buf, cap)
        })
    }
}

impl Drop for Notifier {
    fn drop(&mut self) {
        // SAFETY: freed once; the engines it points to are still allocated
        // (self.engines), and the report closure outlives this call.
        unsafe { sys::tocsin_notify_free(self.ptr) };
    }
}

unsafe extern "C" fn on_report(
    _notifier: *mut sys::tocsin_notifier,
    report: *const sys::tocsin_notify_report,
    user_data: *mut c_void,
) {
    // SAFETY: user_data is the ReportFn set in make(), alive until the
    // notifier is freed; report is valid for the call.
    let (closure, report) = unsafe { (&*(user_data as *const ReportFn), &*report) };
    let detail = if report.detail.is_null() {
        String::new()
    } else {
        // SAFETY: a NUL-terminated string valid for the call.
        unsafe { CStr::from_ptr(report.detail) }.to_string_lossy().into_owned()
    };
    let report = Report {
        kind: report.kind,
        status: report.status,
        timer: if report.timer == 0 {
            None
        } else {
            Some(TimerId(report.timer))
        },
        detail,
    };
    let _ = catch_unwind(AssertUnwindSafe(|| closure(&report)));
}

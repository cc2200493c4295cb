//! `tocsin_notify.h`: desktop alerts for Tocsin timers (libtocsin-notify.so).

use super::{size_t, tocsin_engine, tocsin_timer};
use std::marker::{PhantomData, PhantomPinned};
use std::os::raw::{c_char, c_int, c_uint, c_void};

/// A notifier: its threads, its attached timers. Opaque.
#[repr(C)]
pub struct tocsin_notifier {
    _private: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// Urgency: critical alerts stay until dismissed (the default).
pub const TOCSIN_URGENCY_CRITICAL: i32 = 0;
/// Urgency: normal.
pub const TOCSIN_URGENCY_NORMAL: i32 = 1;
/// Urgency: low.
pub const TOCSIN_URGENCY_LOW: i32 = 2;

/// Alert flag: sound only.
pub const TOCSIN_ALERT_NO_POPUP: u32 = 1;
/// Alert flag: notification only.
pub const TOCSIN_ALERT_NO_SOUND: u32 = 2;
/// Alert flag: no buttons.
pub const TOCSIN_ALERT_NO_ACTIONS: u32 = 4;
/// Alert flag: a live notification while the timer runs or is paused (since 0.5).
pub const TOCSIN_ALERT_LIVE: u32 = 8;
/// Alert flag: the warning is text only (since 0.5).
pub const TOCSIN_ALERT_NO_WARN_SOUND: u32 = 16;
/// Alert flag: pause media players while the alarm rings (since 0.7).
pub const TOCSIN_ALERT_PAUSE_MEDIA: u32 = 32;

/// `tocsin_alert.media`: an alarm as the other fields say (new after 0.8.0).
pub const TOCSIN_MEDIA_NONE: i32 = 0;
/// `tocsin_alert.media`: a sleep timer pausing every playing player at zero.
pub const TOCSIN_MEDIA_PAUSE: i32 = 1;
/// `tocsin_alert.media`: a sleep timer stopping every playing player at zero.
pub const TOCSIN_MEDIA_STOP: i32 = 2;

/// What an alert shows and plays. Zero it and set `size` to
/// `size_of::<tocsin_alert>()` ([`tocsin_alert::new`] does): the library
/// reads only the fields a struct of that size has, so the struct may grow.
/// NULL strings and zero numbers mean the defaults (see the header).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct tocsin_alert {
    /// `size_of::<tocsin_alert>()`: lets this struct grow.
    pub size: size_t,
    /// NULL: the timer's label, or "Timer".
    pub summary: *const c_char,
    /// NULL: "Time is up".
    pub body: *const c_char,
    /// NULL: "appointment-soon" (icon name or path).
    pub icon: *const c_char,
    /// NULL: "alarm-clock-elapsed" (sound theme id).
    pub sound: *const c_char,
    /// NULL: "alarm" (PulseAudio media.role).
    pub media_role: *const c_char,
    /// > 0: the sound repeats until answered, for this long (<= 3600 s); 0: once.
    pub repeat_seconds: f64,
    /// `TOCSIN_URGENCY_*` of the alarm at zero.
    pub urgency: i32,
    /// `TOCSIN_ALERT_*`.
    pub flags: u32,
    /// Since 0.5: > 0: warn this long before zero (<= 86400 s).
    pub warn_seconds: f64,
    /// Since 0.5: NULL: "dialog-warning".
    pub warn_sound: *const c_char,
    /// Since 0.7: > 0: the alarm's button snoozes this long (1 to 86400 s).
    pub snooze_seconds: f64,
    /// Since 0.7: a sound file played instead of `sound`; NULL: none.
    pub sound_file: *const c_char,
    /// Since 0.7: the alarm's volume in dB, -60 to +10; 0: as the sound is.
    pub volume_db: f64,
    /// Since 0.7: > 0: the ring fades in over this long (<= 300 s).
    pub fade_seconds: f64,
    /// New after 0.8.0: > 0: an alarm's upcoming-alarm notice this long before it rings.
    pub notice_seconds: f64,
    /// New after 0.8.0: `TOCSIN_MEDIA_*`: a sleep timer (no sound; the
    /// players paused or stopped at zero after `fade_seconds` of falling volume).
    pub media: i32,
}

impl tocsin_alert {
    /// `TOCSIN_ALERT_INIT`: every field zero or NULL, `size` set.
    pub const fn new() -> Self {
        tocsin_alert {
            size: std::mem::size_of::<tocsin_alert>(),
            summary: std::ptr::null(),
            body: std::ptr::null(),
            icon: std::ptr::null(),
            sound: std::ptr::null(),
            media_role: std::ptr::null(),
            repeat_seconds: 0.0,
            urgency: 0,
            flags: 0,
            warn_seconds: 0.0,
            warn_sound: std::ptr::null(),
            snooze_seconds: 0.0,
            sound_file: std::ptr::null(),
            volume_db: 0.0,
            fade_seconds: 0.0,
            notice_seconds: 0.0,
            media: 0,
        }
    }
}

impl Default for tocsin_alert {
    fn default() -> Self {
        Self::new()
    }
}

/// `tocsin_notify_new` flag: no lines on standard error; reports only.
pub const TOCSIN_NOTIFY_QUIET: c_uint = 1;

/// Report: the notification is showing.
pub const TOCSIN_REPORT_SHOWN: i32 = 1;
/// Report: it could not be shown (detail: why).
pub const TOCSIN_REPORT_ALERT_FAILED: i32 = 2;
/// Report: a sound plays (detail: its id).
pub const TOCSIN_REPORT_SOUND: i32 = 3;
/// Report: no sound could play (detail: why).
pub const TOCSIN_REPORT_SOUND_FAILED: i32 = 4;
/// Report: a button was pressed (detail: which).
pub const TOCSIN_REPORT_ACTION: i32 = 5;
/// Report: the alert was dismissed or closed.
pub const TOCSIN_REPORT_DISMISSED: i32 = 6;
/// Report: the warning before zero was given (since 0.5).
pub const TOCSIN_REPORT_WARNING: i32 = 7;
/// Report: the alarm rang unanswered (since 0.7).
pub const TOCSIN_REPORT_UNANSWERED: i32 = 8;

/// One report, passed to the report callback; valid only during the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct tocsin_notify_report {
    /// `TOCSIN_REPORT_*`.
    pub kind: i32,
    /// 0, or `TOCSIN_EUNAVAILABLE` / `TOCSIN_EIO`.
    pub status: i32,
    /// NULL for `tocsin_notify_show` alerts.
    pub engine: *mut tocsin_engine,
    /// 0 for `tocsin_notify_show` alerts.
    pub timer: tocsin_timer,
    /// UTF-8 text, as described per kind.
    pub detail: *const c_char,
    /// The countdown a snooze ran again (the alert's own timer), else 0.
    pub new_timer: tocsin_timer,
}

/// The report callback.
pub type tocsin_notify_callback = Option<
    unsafe extern "C" fn(notifier: *mut tocsin_notifier, report: *const tocsin_notify_report, user_data: *mut c_void),
>;

extern "C" {
    pub fn tocsin_notify_new(flags: c_uint, out: *mut *mut tocsin_notifier) -> c_int;
    pub fn tocsin_notify_free(notifier: *mut tocsin_notifier);
    pub fn tocsin_notify_set_callback(
        notifier: *mut tocsin_notifier,
        cb: tocsin_notify_callback,
        user_data: *mut c_void,
    ) -> c_int;
    pub fn tocsin_notify_attach(
        notifier: *mut tocsin_notifier,
        engine: *mut tocsin_engine,
        timer: tocsin_timer,
        alert: *const tocsin_alert,
    ) -> c_int;
    pub fn tocsin_notify_detach(
        notifier: *mut tocsin_notifier,
        engine: *mut tocsin_engine,
        timer: tocsin_timer,
    ) -> c_int;
    pub fn tocsin_notify_forget_engine(notifier: *mut tocsin_notifier, engine: *mut tocsin_engine) -> c_int;
    pub fn tocsin_notify_stop(notifier: *mut tocsin_notifier, engine: *mut tocsin_engine, timer: tocsin_timer)
        -> c_int;
    pub fn tocsin_notify_set_live_limit(notifier: *mut tocsin_notifier, count: c_int) -> c_int;
    pub fn tocsin_notify_show(notifier: *mut tocsin_notifier, alert: *const tocsin_alert) -> c_int;
    pub fn tocsin_notify_flush(notifier: *mut tocsin_notifier, timeout_seconds: f64) -> c_int;
    pub fn tocsin_notify_diagnose(notifier: *mut tocsin_notifier, buf: *mut c_char, cap: size_t) -> c_int;
}

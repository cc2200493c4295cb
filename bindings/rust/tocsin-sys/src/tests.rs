//! Every declared function resolves at link time (the test binary links
//! only if each symbol is in the library), the structs have the header's
//! layout, and the constants agree with the library's own tables.

use super::*;
use std::ffi::CStr;
use std::mem::{align_of, size_of};

/// The address of every function `tocsin.h` declares.
fn engine_functions() -> Vec<(&'static str, usize)> {
    macro_rules! addresses {
        ($($name:ident),* $(,)?) => { vec![$((stringify!($name), $name as *const () as usize)),*] };
    }
    addresses![
        tocsin_version,
        tocsin_version_hex,
        tocsin_strerror,
        tocsin_err_name,
        tocsin_engine_new,
        tocsin_engine_free,
        tocsin_engine_close,
        tocsin_engine_fd,
        tocsin_engine_dispatch,
        tocsin_engine_advance,
        tocsin_engine_now,
        tocsin_engine_wall_clock,
        tocsin_engine_simulate_suspend,
        tocsin_engine_set_wall_clock,
        tocsin_engine_add_observer,
        tocsin_engine_remove_observer,
        tocsin_countdown_new,
        tocsin_stopwatch_new,
        tocsin_timer_free,
        tocsin_timer_set_callback,
        tocsin_timer_set_events,
        tocsin_timer_events,
        tocsin_timer_set_tick,
        tocsin_timer_set_label,
        tocsin_timer_label,
        tocsin_timer_start,
        tocsin_timer_suspend,
        tocsin_timer_resume,
        tocsin_timer_cancel,
        tocsin_countdown_start,
        tocsin_timer_set_tick_policy,
        tocsin_timer_set_leeway,
        tocsin_timer_leeway,
        tocsin_timer_adjust,
        tocsin_timer_set_clock,
        tocsin_timer_clock,
        tocsin_alarm_new,
        tocsin_timer_alarm_time,
        tocsin_timer_set_wake,
        tocsin_timer_wake,
        tocsin_engine_can_wake,
        tocsin_engine_wake_reason,
        tocsin_calendar_next,
        tocsin_calendar_check,
        tocsin_calendar_new,
        tocsin_timer_calendar,
        tocsin_calendar_skip,
        tocsin_calendar_skip_until,
        tocsin_calendar_skipped_until,
        tocsin_timer_lap,
        tocsin_timer_laps,
        tocsin_timer_state,
        tocsin_timer_elapsed,
        tocsin_timer_remaining,
        tocsin_timer_duration,
        tocsin_engine_timers,
        tocsin_engine_save,
        tocsin_engine_load,
    ]
}

#[test]
fn every_engine_function_resolves() {
    let functions = engine_functions();
    assert_eq!(functions.len(), 58, "tocsin.h declares 58 functions");
    for (name, address) in functions {
        assert_ne!(address, 0, "{name} did not resolve");
    }
}

#[cfg(feature = "notify")]
#[test]
fn every_notify_function_resolves() {
    macro_rules! addresses {
        ($($name:ident),* $(,)?) => { vec![$((stringify!($name), $name as *const () as usize)),*] };
    }
    let functions: Vec<(&str, usize)> = addresses![
        tocsin_notify_new,
        tocsin_notify_free,
        tocsin_notify_set_callback,
        tocsin_notify_attach,
        tocsin_notify_detach,
        tocsin_notify_forget_engine,
        tocsin_notify_stop,
        tocsin_notify_set_live_limit,
        tocsin_notify_show,
        tocsin_notify_flush,
        tocsin_notify_diagnose,
    ];
    assert_eq!(functions.len(), 11, "tocsin_notify.h declares 11 functions");
    for (name, address) in functions {
        assert_ne!(address, 0, "{name} did not resolve");
    }
}

macro_rules! offset_of {
    ($type:ty, $field:ident) => {{
        let value = std::mem::MaybeUninit::<$type>::uninit();
        let base = value.as_ptr();
        // SAFETY: addr_of! makes a pointer to the field without reading it
        // or making a reference to uninitialized memory.
        let field = unsafe { std::ptr::addr_of!((*base).$field) };
        field as usize - base as usize
    }};
}

#[test]
fn event_has_the_header_layout() {
    assert_eq!(size_of::<tocsin_event>(), 56);
    assert_eq!(align_of::<tocsin_event>(), 8);
    assert_eq!(offset_of!(tocsin_event, kind), 0);
    assert_eq!(offset_of!(tocsin_event, state), 4);
    assert_eq!(offset_of!(tocsin_event, timer), 8);
    assert_eq!(offset_of!(tocsin_event, elapsed), 16);
    assert_eq!(offset_of!(tocsin_event, remaining), 24);
    assert_eq!(offset_of!(tocsin_event, tick), 32);
    assert_eq!(offset_of!(tocsin_event, lateness), 40);
    assert_eq!(offset_of!(tocsin_event, missed), 48);
}

#[cfg(feature = "notify")]
#[test]
fn alert_has_the_header_layout_and_size_rule() {
    // The sizes the library accepts: 0.4's struct ends before warn_seconds,
    // 0.5/0.6's before snooze_seconds, 0.7/0.8's before notice_seconds.
    assert_eq!(offset_of!(tocsin_alert, warn_seconds), 64);
    assert_eq!(offset_of!(tocsin_alert, snooze_seconds), 80);
    assert_eq!(offset_of!(tocsin_alert, notice_seconds), 112);
    assert_eq!(offset_of!(tocsin_alert, media), 120);
    assert_eq!(size_of::<tocsin_alert>(), 128);
    assert_eq!(tocsin_alert::new().size, 128);
    assert_eq!(offset_of!(tocsin_notify_report, detail), 24);
    assert_eq!(size_of::<tocsin_notify_report>(), 40);
}

#[test]
fn error_codes_match_the_library() {
    let codes = [
        (TOCSIN_OK, "TOCSIN_OK"),
        (TOCSIN_EINVAL, "TOCSIN_EINVAL"),
        (TOCSIN_ENOENT, "TOCSIN_ENOENT"),
        (TOCSIN_ESTATE, "TOCSIN_ESTATE"),
        (TOCSIN_ENOMEM, "TOCSIN_ENOMEM"),
        (TOCSIN_EIO, "TOCSIN_EIO"),
        (TOCSIN_ECORRUPT, "TOCSIN_ECORRUPT"),
        (TOCSIN_ECLOSED, "TOCSIN_ECLOSED"),
        (TOCSIN_EUNAVAILABLE, "TOCSIN_EUNAVAILABLE"),
        (TOCSIN_ERANGE, "TOCSIN_ERANGE"),
    ];
    for (code, name) in codes {
        // SAFETY: tocsin_err_name takes any int and returns a static string.
        let got = unsafe { CStr::from_ptr(tocsin_err_name(code)) };
        if code != TOCSIN_OK {
            assert_eq!(got.to_str().unwrap(), name);
        }
    }
    // SAFETY: as above; tocsin_strerror's strings are static.
    let text = unsafe { CStr::from_ptr(tocsin_strerror(TOCSIN_EINVAL)) };
    assert_eq!(text.to_str().unwrap(), "invalid argument");
}

#[test]
fn version_matches_the_header() {
    // SAFETY: no arguments; the string is static.
    let (text, hex) = unsafe { (CStr::from_ptr(tocsin_version()), tocsin_version_hex()) };
    assert_eq!(hex >> 16, TOCSIN_VERSION_MAJOR, "another major version: another ABI");
    assert!(hex >= TOCSIN_VERSION_HEX, "library {text:?} older than the header");
}

#[test]
fn a_manual_engine_counts_down() {
    let mut engine = std::ptr::null_mut();
    let mut timer = 0;
    // SAFETY: out-pointers to live locals; the engine is freed once, at the end.
    unsafe {
        assert_eq!(tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &mut engine), TOCSIN_OK);
        assert_eq!(tocsin_countdown_new(engine, 2.0, &mut timer), TOCSIN_OK);
        assert_eq!(tocsin_timer_start(engine, timer), TOCSIN_OK);
        assert_eq!(tocsin_engine_advance(engine, 2.0), 0); // no callback set
        let state = tocsin_timer_state(engine, timer);
        assert_eq!(state, TOCSIN_FINISHED);
        assert_eq!(tocsin_countdown_new(engine, f64::NAN, &mut timer), TOCSIN_EINVAL);
        tocsin_engine_free(engine);
    }
}

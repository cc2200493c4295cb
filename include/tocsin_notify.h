/*
 * tocsin_notify.h — desktop alerts for Tocsin timers (libtocsin-notify.so).
 *
 * When an attached timer finishes, the notifier shows a desktop notification
 * (freedesktop Desktop Notifications, through libnotify) and plays the alarm
 * sound (freedesktop sound theme, through libcanberra). The alert is
 * withdrawn when the timer is started again or cancelled. Where the server
 * supports buttons it offers Stop (silence, dismiss), Restart (start the
 * timer again; not for a wall-clock alarm) and +1 min (the same timer runs
 * again with 60 s left: tocsin_timer_adjust(), since 0.3).
 *
 * LIVE NOTIFICATIONS (since 0.5, TOCSIN_ALERT_LIVE)
 *   While the timer runs or is paused, one notification shows it: summary =
 *   the label, body = "4:59 left" ("4:59 left · paused"; a stopwatch:
 *   "1:23 elapsed"), the "value" hint = percent done (servers such as dunst
 *   draw a bar), low urgency, the "resident" and "suppress-sound" hints, no
 *   expiry, no sound. It is updated in place (one notification id, the
 *   protocol's replaces_id) only when its text changes (the percentage
 *   alone is no reason to send): since 0.8 every live notification of a
 *   notifier is updated on one beat, at each whole second of the wall
 *   clock, so a hundred live timers wake the notifier once a second; a
 *   button's effect shows at once (the beat's next update then waits at
 *   least 0.9 s), nothing is sent while paused. Since 0.8 at most the 3
 *   live timers ending soonest (running countdowns, then stopwatches, then
 *   paused timers; the 3: tocsin_notify_set_live_limit) show their own
 *   notification; the others are summed up in one notification ("5 more
 *   timers": "Rice 3:12 · Eggs 7:40 · …", low urgency, no buttons),
 *   updated in place and closed when 3 or fewer are left; a timer moving
 *   into the first 3 gets its own again. Alarms never wait behind live
 *   updates. Buttons: Pause / Resume (one
 *   button that toggles), +1 min (tocsin_timer_adjust; not for a stopwatch)
 *   and Cancel. At zero the same notification becomes the alarm (critical,
 *   the sound, Stop / Restart / +1 min) and then counts the time since
 *   ("Ran out 0:20 ago", "Rang 0:20 ago" for an alarm) every 10 s (on the
 *   beat) until it
 *   is stopped or dismissed. Dismissing the live notification hides it
 *   until the timer's next state change. It is withdrawn when the timer is
 *   cancelled, freed or detached. The notifier reads the timer's times
 *   itself, on its own thread: the timer needs no tick interval, and live
 *   updates follow the real clock (on a MANUAL_CLOCK engine they show the
 *   engine's time as it is when they look).
 *
 * WARNING BEFORE ZERO (since 0.5, tocsin_alert.warn_seconds)
 *   warn_seconds before zero the notifier plays a short sound (warn_sound,
 *   default "dialog-warning", falling back to "bell" and the terminal's
 *   bell) and says so: the live notification, or without TOCSIN_ALERT_LIVE a
 *   notification of its own, reads "1 minute left" (in normal urgency), so
 *   the person can add time before the alarm. A timer started with less
 *   time left than warn_seconds gets no warning; one given more time
 *   afterwards is warned again when its time comes round.
 *
 * A SOUND SERVER THAT IS NOT READY (since 0.6)
 *   When a sound server is meant to be there (PULSE_SERVER is set, or
 *   PulseAudio's or PipeWire's socket is in XDG_RUNTIME_DIR) but is not, or
 *   refuses to play (right after a resume its sinks are often being
 *   re-created), the alarm sound is tried
 *   again after 0.25 s, then at doubling intervals up to 4 s, for 30 s
 *   (TOCSIN_NOTIFY_SOUND_RETRY_SECONDS in the environment, 0 to 300, sets
 *   another time) from when it was due: it plays late rather than not at
 *   all, and its TOCSIN_REPORT_SOUND says how late. If the server never
 *   comes, the terminal's bell rings where there is one and the report
 *   (TOCSIN_REPORT_SOUND, "terminal-bell", or TOCSIN_REPORT_SOUND_FAILED)
 *   gives the reason. A theme with none of the sounds, or a machine where
 *   no sound server is meant to be (a server, an ssh session), is not
 *   retried: the bell at once. Stop or dismissing the alert meanwhile
 *   cancels the wait.
 *
 * SERVERS
 *   What the server cannot do is left out, never retried in a loop: no
 *   buttons without the "actions" capability, the time in the summary
 *   without "body". A live notification that cannot be shown is reported
 *   once (TOCSIN_REPORT_ALERT_FAILED) and not tried again until the timer's
 *   next state change.
 *
 * THREADS
 *   The notifier runs a GLib main loop on a private thread (so buttons work
 *   in hosts without GLib) and plays sounds on another. The GLib thread is
 *   one per process, shared by all its notifiers and ended with the last
 *   one (libnotify, which it drives, is one per process: new after 0.8.0, a
 *   notifier made after another, or outliving it, gets its buttons; before,
 *   only the process's first did). The engine's delivery
 *   thread only hands events over: a missing, slow or frozen desktop never
 *   delays a timer or its FINISH event. Every function may be called from
 *   any thread, including from timer callbacks. Report callbacks run on one
 *   of the notifier's threads.
 *
 * FAILURES
 *   Desktop problems are not errors of the calls that attach alerts: they are
 *   found when an alert is due, fast (each D-Bus check waits at most 1 s;
 *   with no session bus, no time at all), and reported through the report
 *   callback with TOCSIN_EUNAVAILABLE and a reason such as "no session bus:
 *   DBUS_SESSION_BUS_ADDRESS is not set". Each distinct reason is also
 *   written once to standard error unless TOCSIN_NOTIFY_QUIET is given.
 *   Sounds fall back from the requested id to alarm-clock-elapsed, complete,
 *   bell, and the terminal's bell (BEL on /dev/tty); a report names the one
 *   that played.
 *
 * ENGINES
 *   The notifier works with engines of the libtocsin.so.0 already loaded in
 *   the process (it is found by its soname). Before freeing an engine that
 *   has attached timers, call tocsin_notify_forget_engine() (or free the
 *   notifier): the notifier keeps the engine pointer for the buttons.
 *
 * Status codes are those of tocsin.h; tocsin_strerror() gives their text.
 */
#ifndef TOCSIN_NOTIFY_H
#define TOCSIN_NOTIFY_H

#include "tocsin.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A notifier: its threads, its attached timers. Opaque. */
typedef struct tocsin_notifier tocsin_notifier;

/** tocsin_alert.urgency. Critical alerts stay until dismissed. */
enum {
    TOCSIN_URGENCY_CRITICAL = 0, /* the default */
    TOCSIN_URGENCY_NORMAL = 1,
    TOCSIN_URGENCY_LOW = 2
};

/** tocsin_alert.flags. */
enum {
    TOCSIN_ALERT_NO_POPUP = 1,   /* sound only */
    TOCSIN_ALERT_NO_SOUND = 2,   /* notification only */
    TOCSIN_ALERT_NO_ACTIONS = 4, /* no buttons */
    TOCSIN_ALERT_LIVE = 8,       /* since 0.5: a live notification while the
                                    timer runs or is paused (see above) */
    TOCSIN_ALERT_NO_WARN_SOUND = 16, /* since 0.5: the warning is text only */
    TOCSIN_ALERT_PAUSE_MEDIA = 32    /* since 0.7: while the alarm's sound
                                        rings, pause every media player
                                        (MPRIS on the session bus) that is
                                        playing; when no alarm rings any
                                        more (Stop, snooze, dismissal, the
                                        ring's end) resume those, and only
                                        those still paused */
};

/** tocsin_alert.media (new after 0.8.0): a sleep timer's action. */
enum {
    TOCSIN_MEDIA_NONE = 0,  /* an alarm as the other members say */
    TOCSIN_MEDIA_PAUSE = 1, /* Pause every playing player at zero */
    TOCSIN_MEDIA_STOP = 2   /* Stop every playing player at zero */
};

/**
 * What an alert shows and plays. Zero it, set size = sizeof(tocsin_alert),
 * then set what you need (or use TOCSIN_ALERT_INIT): NULL strings and zero
 * numbers mean the defaults below. Strings are UTF-8, copied by the call.
 */
typedef struct tocsin_alert {
    size_t size;            /* sizeof(tocsin_alert): lets this struct grow */
    const char *summary;    /* NULL: the timer's label, or "Timer" */
    const char *body;       /* NULL: "Time is up" */
    const char *icon;       /* NULL: "appointment-soon" (icon name or path) */
    const char *sound;      /* NULL: "alarm-clock-elapsed" (sound theme id) */
    const char *media_role; /* NULL: "alarm" (PulseAudio media.role) */
    double repeat_seconds;  /* > 0: the ring: the sound plays again as
                               soon as it ends until the alert is
                               dismissed, stopped or snoozed, for this
                               long (<= 3600; since 0.7 cut at that time
                               even mid-play, and a ring that runs out
                               leaves the alert saying "Rang for 1 min at
                               07:00, unanswered": TOCSIN_REPORT_UNANSWERED);
                               0: play it once */
    int32_t urgency;        /* TOCSIN_URGENCY_* (of the alarm at zero) */
    uint32_t flags;         /* TOCSIN_ALERT_* */
    /* Since 0.5; a size of 0.4's struct (offsetof(tocsin_alert,
       warn_seconds)) is still accepted and means 0 / NULL here. */
    double warn_seconds;    /* > 0: warn this long before zero (<= 86400);
                               0: no warning */
    const char *warn_sound; /* NULL: "dialog-warning" */
    /* Since 0.7; a 0.5 or 0.6 struct (size offsetof(tocsin_alert,
       snooze_seconds)) is still accepted and means 0 here. */
    double snooze_seconds;  /* > 0: the alarm's button reads "Snooze 5 min"
                               and puts the timer off this long (1 to
                               86400); 0: it reads "+1 min" and gives a
                               minute. A snooze of a countdown or alarm is
                               tocsin_timer_adjust() by that much (it rings
                               again then, as the same timer); the alert
                               says "Snoozed for 5 min" until the next ring
                               replaces it in the same notification. */
    const char *sound_file; /* since 0.7; NULL: none. A sound file of one's
                               own (WAV, Ogg, FLAC: what libcanberra plays,
                               by CA_PROP_MEDIA_FILENAME), played instead
                               of `sound`. tocsin_notify_attach() refuses
                               (TOCSIN_EINVAL) an empty name and a file that
                               is missing, not a regular file or not
                               readable; one that cannot be played when it
                               rings (removed since, or not sound) rings
                               `sound` instead, and TOCSIN_REPORT_SOUND's
                               detail ends "(instead of FILE: why)" */
    double volume_db;       /* since 0.7: the alarm's volume in dB,
                               -60 to +10 (CA_PROP_CANBERRA_VOLUME);
                               0: as the sound is */
    double fade_seconds;    /* since 0.7: > 0: the ring starts 30 dB below
                               volume_db and rises to it over this long
                               (<= 300), replayed louder every tenth of it
                               (at least every second); with media, the
                               players' volume falls over this long before
                               zero instead; 0: no fade */
    /* New after 0.8.0; a 0.7 or 0.8 struct (size offsetof(tocsin_alert,
       notice_seconds)) is still accepted and means 0 here. */
    double notice_seconds;  /* > 0: an alarm's upcoming-alarm notice this
                               long before it rings (<= 86400): "Rings at
                               07:00, in 30 min" with a "Skip this one"
                               button (a calendar alarm skips that ring,
                               tocsin_calendar_skip(); a one-time alarm is
                               cancelled), closed at the ring or when the
                               ring moves away; a skipped ring gets none.
                               Alarms only (a countdown's is warn_seconds;
                               ignored there); 0: none */
    /* New after 0.8.0; a struct ending before it (size offsetof(tocsin_alert,
       media)) is still accepted and means TOCSIN_MEDIA_NONE here. */
    int32_t media;          /* TOCSIN_MEDIA_*: a sleep timer. At zero every
                               media player (MPRIS on the session bus) that
                               is playing gets Pause (or Stop), on the
                               notifier's thread, each call waiting at most
                               0.5 s; no sound plays (sound, sound_file,
                               repeat_seconds, volume_db and
                               TOCSIN_ALERT_PAUSE_MEDIA are not used), and
                               the notification, unless
                               TOCSIN_ALERT_NO_POPUP, says what was done
                               ("Paused 2 players", instead of body) with
                               no buttons. With
                               fade_seconds > 0 each playing player's
                               Volume first falls linearly over the last
                               fade_seconds before zero (a step every 0.5
                               s, to about 0 at zero) and is set back to
                               what it was after the Pause; a player
                               paused, stopped or closed meanwhile is left
                               alone (its volume put back), one without a
                               writable Volume is only paused. The fade
                               follows the timer: paused, cancelled or
                               given more time, it ends and the volumes
                               are put back. Any other value:
                               TOCSIN_EINVAL */
} tocsin_alert;

#define TOCSIN_ALERT_INIT {sizeof(tocsin_alert), NULL, NULL, NULL, NULL, NULL, 0.0, 0, 0, 0.0, NULL, 0.0, NULL, 0.0, 0.0, 0.0, 0}

/** tocsin_notify_new() flags. */
enum {
    TOCSIN_NOTIFY_QUIET = 1 /* no lines on standard error; reports only */
};

/** tocsin_notify_report.kind. */
enum {
    TOCSIN_REPORT_SHOWN = 1,        /* the notification is showing (a live
                                       one: when it appears, not at each
                                       update) */
    TOCSIN_REPORT_ALERT_FAILED = 2, /* it could not be shown (detail: why) */
    TOCSIN_REPORT_SOUND = 3,        /* a sound plays (detail: its id, or
                                       "terminal-bell"; since 0.6, a sound
                                       that waited for the sound server:
                                       its id, then " (after N s: why)") */
    TOCSIN_REPORT_SOUND_FAILED = 4, /* no sound could play (detail: why) */
    TOCSIN_REPORT_ACTION = 5,       /* a button was pressed (detail: "stop",
                                       "restart", "snooze", and on a live
                                       notification "pause", "resume",
                                       "cancel") */
    TOCSIN_REPORT_DISMISSED = 6,    /* the alert was dismissed or closed */
    TOCSIN_REPORT_WARNING = 7,      /* since 0.5: the warning before zero was
                                       given (detail: "1 minute left") */
    TOCSIN_REPORT_UNANSWERED = 8    /* since 0.7: the alarm's sound rang all
                                       its repeat_seconds and nobody stopped,
                                       snoozed or dismissed it; its
                                       notification now says so and stays
                                       (detail: "Rang for 1 min at 07:00,
                                       unanswered") */
};

/** One report, passed to the report callback; valid only during the call. */
typedef struct tocsin_notify_report {
    int32_t kind;           /* TOCSIN_REPORT_* */
    int32_t status;         /* 0, or TOCSIN_EUNAVAILABLE / TOCSIN_EIO */
    tocsin_engine *engine;  /* NULL for tocsin_notify_show() alerts */
    tocsin_timer timer;     /* 0 for tocsin_notify_show() alerts */
    const char *detail;     /* UTF-8 text, as described per kind */
    tocsin_timer new_timer; /* the countdown a snooze ran again: since 0.3
                               the alert's own timer (tocsin_timer_adjust),
                               else 0 */
} tocsin_notify_report;

typedef void (*tocsin_notify_callback)(tocsin_notifier *notifier,
                                       const tocsin_notify_report *report,
                                       void *user_data);

/**
 * Creates a notifier and starts its threads. flags: 0 or
 * TOCSIN_NOTIFY_QUIET. Returns TOCSIN_EINVAL for unknown flags or a NULL
 * out, TOCSIN_EIO if a thread cannot start. Succeeds without a desktop:
 * problems are reported when an alert is due.
 */
TOCSIN_EXTERN int tocsin_notify_new(unsigned flags, tocsin_notifier **out);

/**
 * Withdraws every alert, silences every sound, stops the threads and frees
 * the notifier. NULL is a no-op. Do not call it from a report callback.
 */
TOCSIN_EXTERN void tocsin_notify_free(tocsin_notifier *notifier);

/** Sets the report callback (NULL: none). */
TOCSIN_EXTERN int tocsin_notify_set_callback(tocsin_notifier *notifier,
                                             tocsin_notify_callback cb,
                                             void *user_data);

/**
 * Shows `alert` (NULL: the defaults) and plays its sound each time the timer
 * finishes, until detached; with TOCSIN_ALERT_LIVE or warn_seconds, follows
 * its time as described above (a timer already running is shown at once).
 * Attaching again replaces the alert. Returns
 * TOCSIN_EINVAL for NULL pointers or a bad alert (size smaller than 0.4's,
 * invalid UTF-8, bad urgency, flags, repeat_seconds or warn_seconds),
 * TOCSIN_ENOENT for an unknown
 * timer, TOCSIN_EUNAVAILABLE if libtocsin.so.0 is not loaded, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_notify_attach(tocsin_notifier *notifier,
                                       tocsin_engine *engine,
                                       tocsin_timer timer,
                                       const tocsin_alert *alert);

/** Stops alerting for the timer and withdraws its alert. TOCSIN_ENOENT if
 *  it was not attached. */
TOCSIN_EXTERN int tocsin_notify_detach(tocsin_notifier *notifier,
                                       tocsin_engine *engine,
                                       tocsin_timer timer);

/** Detaches every timer of the engine; call it before freeing the engine. */
TOCSIN_EXTERN int tocsin_notify_forget_engine(tocsin_notifier *notifier,
                                              tocsin_engine *engine);

/** Silences and dismisses the timer's alert, as the Stop button does; it
 *  stays attached for the next finish. TOCSIN_ENOENT if none is attached. */
TOCSIN_EXTERN int tocsin_notify_stop(tocsin_notifier *notifier,
                                     tocsin_engine *engine,
                                     tocsin_timer timer);

/**
 * How many live notifications show at once (0 to 1000; 3 by default): those
 * of the timers ending soonest; the others are summed up in one (see LIVE
 * NOTIFICATIONS). Applies at once. Since 0.8. Returns TOCSIN_EINVAL for a
 * NULL notifier or a count out of range, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_notify_set_live_limit(tocsin_notifier *notifier,
                                               int count);

/**
 * Shows `alert` now, with no timer (summary defaults to "Tocsin"; the only
 * button is Stop). Returns at once; reports say what happened.
 */
TOCSIN_EXTERN int tocsin_notify_show(tocsin_notifier *notifier,
                                     const tocsin_alert *alert);

/**
 * Waits until every alert asked for so far has been shown (or has failed)
 * and every sound has ended (a repeating one: until stopped or at its
 * limit), for at most timeout_seconds. Returns 0 when nothing is pending,
 * 1 if the time ran out first, TOCSIN_EINVAL. For programs that exit right
 * after a timer finishes.
 */
TOCSIN_EXTERN int tocsin_notify_flush(tocsin_notifier *notifier,
                                      double timeout_seconds);

/**
 * Writes a report of what the desktop offers, one "topic: finding" line
 * each (session bus, notification server and its capabilities, sound
 * server, the file of each alarm sound), as a NUL-terminated string of at
 * most cap - 1 bytes. Returns its full length (as snprintf). Takes up to
 * about 4 s when services do not answer (1 s for each of two D-Bus calls,
 * 2 s for the sound server).
 */
TOCSIN_EXTERN int tocsin_notify_diagnose(tocsin_notifier *notifier, char *buf,
                                         size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* TOCSIN_NOTIFY_H */

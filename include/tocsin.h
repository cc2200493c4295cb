/*
 * tocsin.h — the C interface of the Tocsin timer engine (libtocsin.so).
 *
 * Tocsin runs many countdown and stopwatch timers in one engine. Each timer is
 * started, suspended, resumed, cancelled and restarted on its own, keeps its
 * exact remaining time across suspend/resume, and reports TICK, STATE and
 * FINISH events to one callback. Time is computed from deadlines on the clock,
 * never by counting ticks, so a late callback never makes a timer drift.
 *
 * THE CLOCK
 *   Real-clock engines read CLOCK_BOOTTIME: it keeps counting while the
 *   machine is suspended, so a 25-minute countdown ends 25 real minutes after
 *   it started even across a laptop suspend (it finishes at resume if the
 *   deadline passed during the sleep). The whole engine arms one kernel timer
 *   (a timerfd with an absolute nanosecond deadline) for its earliest deadline:
 *   no thread or kernel object per timer, and no wakeups while nothing is due
 *   (in DEFAULT mode, at most one at the deadline of a timer cancelled while
 *   it was the earliest: cancelling makes no system call).
 *   All times in this API are seconds as double; the engine keeps
 *   nanoseconds. A time given in seconds becomes the nearest whole number of
 *   nanoseconds (halves away from zero), and any time above zero at least
 *   1 ns, so that "more than zero" holds: advancing n times by x is n times
 *   the rounded x, which differs from advancing once by n * x when x is not
 *   a whole number of nanoseconds (n * 1e-10 s advances n ns, not n/10).
 *
 * ORDER
 *   In every mode events are delivered in due-time order. Events due at the
 *   same time: first the STATE events already queued (in the order of the
 *   calls that caused them), then TICK and FINISH events in the order their
 *   runs were started or resumed. A STATE event caused by a callback joins
 *   that queue: after the STATE events queued before it, before the TICK and
 *   FINISH events due at the same time or later.
 *
 * BOUNDED ROUNDS
 *   Every delivery round (one wakeup of the engine thread, one
 *   tocsin_engine_dispatch(), one tocsin_engine_advance() or other call that
 *   moves a manual clock) ends after bounded work, whatever it was asked:
 *   it delivers what was due when it began, and ticks one by one up to
 *   TOCSIN_TICK_BURST of them. Past that, each timer's ticks still due in
 *   that round are folded into one TICK, the timer's latest due, delivered
 *   in its place in due-time order with `missed` counting the ticks skipped
 *   (numbers and `elapsed` stay exact: nothing drifts). So a tiny interval
 *   (1 ns asks for a billion ticks a second) costs at most about
 *   TOCSIN_TICK_BURST callbacks per round, and between two callbacks other
 *   threads' calls (a cancel) get in. The one work a round does not bound is
 *   what its callbacks cause on a manual clock: a callback that restarts its
 *   1 ns countdown on every FINISH makes tocsin_engine_advance(e, 1) deliver
 *   a billion FINISH events, as asked.
 *
 * THREADS
 *   Every function may be called from any thread, and from inside a callback
 *   (start, cancel or free timers, create new ones) without deadlock. No
 *   callback is ever called from inside the API call that caused its event:
 *   callbacks run only where the engine's mode says (see tocsin_engine_new),
 *   one at a time, never while the engine holds its lock.
 *
 * ERRORS
 *   Every call that can fail returns int: TOCSIN_OK (0) or a negative
 *   TOCSIN_E* code; tocsin_strerror() gives its text. A failed call changes
 *   nothing, and if a call fails its callback is never called for it. Bad
 *   input (NULL pointers, stale handles, NaN, ...) gets an error code, never a
 *   crash. The one thing that cannot be checked is the engine pointer
 *   itself: as with free(3), it must not be used once tocsin_engine_free()
 *   may have started on another thread. To stop an engine that other threads
 *   may still call, use tocsin_engine_close() (every later call gets
 *   TOCSIN_ECLOSED) and free it once they are done.
 *
 * ABI
 *   Same major version = same ABI. A shipped signature never changes; a new
 *   behaviour gets a new function. tocsin_event may grow at its end.
 */
#ifndef TOCSIN_H
#define TOCSIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TOCSIN_EXTERN __attribute__((visibility("default")))
#else
#define TOCSIN_EXTERN
#endif

/* ---------------------------------------------------------------- types -- */

/** An engine: a set of timers and one delivery mode. Opaque. */
typedef struct tocsin_engine tocsin_engine;

/**
 * A timer's handle within its engine. 0 is never valid. Handles are not
 * reused for the life of an engine, and a handle of one engine is unknown
 * (TOCSIN_ENOENT) to every other engine.
 */
typedef uint64_t tocsin_timer;

/* --------------------------------------------------------------- version -- */

#define TOCSIN_VERSION_MAJOR 0
#define TOCSIN_VERSION_MINOR 8
#define TOCSIN_VERSION_PATCH 0
#define TOCSIN_VERSION_STRING "0.8.0"
/** (major << 16) | (minor << 8) | patch, comparable with integer operators. */
#define TOCSIN_VERSION_HEX                                                     \
    ((TOCSIN_VERSION_MAJOR << 16) | (TOCSIN_VERSION_MINOR << 8) |             \
     TOCSIN_VERSION_PATCH)

/** The library's version as "MAJOR.MINOR.PATCH". Static: must not be freed. */
TOCSIN_EXTERN const char *tocsin_version(void);
/** The library's version as TOCSIN_VERSION_HEX, to compare with the header. */
TOCSIN_EXTERN unsigned tocsin_version_hex(void);

/* ---------------------------------------------------------------- errors -- */

/**
 * Every error code, its value and its text, in one list: the enum below,
 * tocsin_strerror() and tocsin_err_name() are all generated from it.
 */
#define TOCSIN_ERRNO_MAP(XX)                                                   \
    XX(EINVAL, -1, "invalid argument")                                         \
    XX(ENOENT, -2, "no such timer in this engine")                             \
    XX(ESTATE, -3, "not allowed in the current state or engine mode")          \
    XX(ENOMEM, -4, "out of memory or out of timer slots")                      \
    XX(EIO, -5, "input/output error")                                          \
    XX(ECORRUPT, -6, "corrupt or unsupported data")                            \
    XX(ECLOSED, -7, "the engine is closed")                                    \
    XX(EUNAVAILABLE, -8, "not available here (desktop session, server)")   \
    XX(ERANGE, -9, "no such time: the calendar spec has no occurrence after it")

enum {
    TOCSIN_OK = 0,
#define TOCSIN_XX_(name, code, text) TOCSIN_##name = (code),
    TOCSIN_ERRNO_MAP(TOCSIN_XX_)
#undef TOCSIN_XX_
};

/**
 * The text of a status code ("success" for 0, "unknown error" for any value
 * that is not a code). Static: must not be freed. Thread-safe.
 */
TOCSIN_EXTERN const char *tocsin_strerror(int status);
/** The name of a status code ("TOCSIN_EINVAL"), "TOCSIN_UNKNOWN" otherwise. */
TOCSIN_EXTERN const char *tocsin_err_name(int status);

/* ------------------------------------------------------ states and events -- */

/** A timer's state. tocsin_timer_state() returns one of these. */
enum {
    TOCSIN_IDLE = 0,      /* created, never started */
    TOCSIN_RUNNING = 1,   /* time is running */
    TOCSIN_SUSPENDED = 2, /* time is held; resume carries on exactly */
    TOCSIN_FINISHED = 3,  /* a countdown ran out (stopwatches never finish) */
    TOCSIN_CANCELED = 4   /* cancelled while running or suspended */
};

/** What an event reports. */
enum {
    TOCSIN_EVENT_TICK = 1,   /* tick k: k x interval of running time passed */
    TOCSIN_EVENT_STATE = 2,  /* the timer changed state (event->state) */
    TOCSIN_EVENT_FINISH = 3  /* a countdown ran out; STATE(FINISHED) follows */
};

/**
 * Event kinds as bits: which events a timer's callback gets
 * (tocsin_timer_set_events(), tocsin_countdown_start()).
 */
enum {
    TOCSIN_EVENTS_TICK = 1 << TOCSIN_EVENT_TICK,     /* 2 */
    TOCSIN_EVENTS_STATE = 1 << TOCSIN_EVENT_STATE,   /* 4 */
    TOCSIN_EVENTS_FINISH = 1 << TOCSIN_EVENT_FINISH, /* 8 */
    TOCSIN_EVENTS_ALL = TOCSIN_EVENTS_TICK | TOCSIN_EVENTS_STATE |
                        TOCSIN_EVENTS_FINISH
};

/**
 * One event, passed to the timer's callback. The pointer is valid only during
 * the call. Fields may be added at the end in later minor versions.
 */
typedef struct tocsin_event {
    int32_t kind;         /* TOCSIN_EVENT_* */
    int32_t state;        /* the timer's state after this event */
    tocsin_timer timer;   /* the timer the event belongs to */
    double elapsed;       /* seconds of running time (suspended time excluded);
                             on TICK exactly tick x interval; on STATE the
                             running time at the change */
    double remaining;     /* countdown: seconds left (0 on FINISH); on STATE
                             the duration when it is delivered less
                             `elapsed`, so an adjustment made between a
                             change and its delivery shows in every STATE
                             still queued (start, then adjust +300 at once:
                             both say the new time left);
                             stopwatch: -1 */
    uint64_t tick;        /* 1-based tick number on TICK, else 0 */
    double lateness;      /* seconds from the event's due time to its delivery
                             (never negative; always 0 on a manual clock) */
    uint64_t missed;      /* on a coalesced or folded TICK: ticks skipped
                             before this one (see
                             tocsin_timer_set_tick_policy, BOUNDED ROUNDS);
                             on a
                             calendar alarm's FINISH: occurrences passed
                             over before this ring (see
                             tocsin_calendar_new); else 0. Since 0.3 */
} tocsin_event;

/**
 * A timer's callback. Called with the engine, the event and the user_data
 * given to tocsin_timer_set_callback(). It may call any tocsin_ function,
 * including tocsin_timer_free() of its own timer and tocsin_engine_free().
 */
typedef void (*tocsin_callback)(tocsin_engine *engine,
                                const tocsin_event *event, void *user_data);

/* ---------------------------------------------------------------- limits -- */

/** The largest duration, tick interval or advance step: 100 years. */
#define TOCSIN_MAX_SECONDS 3155760000.0
/** The longest label, in bytes of UTF-8, without the terminating NUL. */
#define TOCSIN_LABEL_MAX 4096
/** The most timers one engine holds at once. */
#define TOCSIN_TIMERS_MAX 16777215
/** The most ticks one delivery round delivers one by one before it folds
    the rest (see BOUNDED ROUNDS). New after 0.8.0. */
#define TOCSIN_TICK_BURST 4096

/* ---------------------------------------------------------------- engine -- */

/** Delivery modes: pass exactly one as tocsin_engine_new()'s flags. */
enum {
    /* Callbacks run on the engine's own thread, one at a time, in due-time
       order (equal due times: in start order). TICK and FINISH are delivered
       at their deadlines; STATE events are gathered: the thread wakes for
       them 1 ms after the first (or at an earlier deadline) and delivers
       them together, so that a host starting timers in a burst does not have
       it fighting for the lock. Expect them about 1 ms after the change,
       later only if a callback runs long. */
    TOCSIN_ENGINE_DEFAULT = 0,
    /* Nothing is delivered by itself: watch tocsin_engine_fd() in your own
       event loop (poll, epoll, GLib, libuv, asyncio add_reader) and call
       tocsin_engine_dispatch() when it is readable. Callbacks run inside
       tocsin_engine_dispatch(), on the thread that calls it. */
    TOCSIN_ENGINE_POLLED = 1,
    /* The real clock is never read: time starts at 0 and moves only with
       tocsin_engine_advance(), which delivers what fell due on the caller's
       thread. Deterministic and instant, for tests. */
    TOCSIN_ENGINE_MANUAL_CLOCK = 2
};

/**
 * Creates an engine in the mode given by flags and stores it in *out.
 * Returns TOCSIN_EINVAL if out is NULL or flags is not a mode, TOCSIN_EIO if
 * the kernel timer or the engine thread cannot be created, TOCSIN_ENOMEM.
 * The caller owns the engine and frees it with tocsin_engine_free().
 */
TOCSIN_EXTERN int tocsin_engine_new(unsigned flags, tocsin_engine **out);

/**
 * Frees an engine and every timer in it (closing it first if it is open).
 * NULL is a no-op.
 *
 * When it returns, no callback of this engine is running or will run: from
 * another thread it waits for a running callback to return. Called from
 * inside one of the engine's own callbacks it returns at once; no further
 * callback is called, and the engine is torn down when that callback returns;
 * calls that callback makes after the free get TOCSIN_ECLOSED. No other
 * thread may use the pointer once the free has started (undefined, as
 * free(3)): stop such threads first, or close the engine with
 * tocsin_engine_close() and free it when they are done.
 */
TOCSIN_EXTERN void tocsin_engine_free(tocsin_engine *engine);

/**
 * Closes an engine without freeing it: frees every timer and stops delivery
 * with the same guarantees as tocsin_engine_free(), but the pointer stays
 * valid, and every later call on it returns TOCSIN_ECLOSED until
 * tocsin_engine_free() releases it. For hosts whose objects die in any order
 * (garbage-collected bindings). Closing twice is a no-op; NULL is a no-op.
 */
TOCSIN_EXTERN void tocsin_engine_close(tocsin_engine *engine);

/**
 * POLLED mode: a file descriptor that is readable while events wait to be
 * delivered (pass it to poll/epoll with POLLIN), never before an event is
 * due. It may also turn readable once at the deadline of the earliest timer
 * if that timer was cancelled, suspended or freed meanwhile (so that those
 * calls make no system call), and, while alarms run, when the wall clock
 * is set; tocsin_engine_dispatch() then returns 0 (or delivers what the new
 * wall time made due) and the fd is clear until the next event. With no
 * timer armed it stays clear.
 * The engine owns it: do not read, write or close it. Returns the fd (>= 0),
 * or TOCSIN_ESTATE in other modes, TOCSIN_EINVAL for a NULL engine,
 * TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_engine_fd(tocsin_engine *engine);

/**
 * POLLED mode: delivers, on the calling thread, the events that were waiting
 * when it was called (events caused meanwhile wait for the next call), at
 * most about TOCSIN_TICK_BURST ticks one by one (see BOUNDED ROUNDS): it
 * returns after bounded work, and the fd stays readable if more is due.
 * Returns how many callbacks it called (>= 0), or TOCSIN_ESTATE in other
 * modes or from inside a callback, TOCSIN_EINVAL, TOCSIN_ECLOSED. Calls from
 * several threads are served one after another.
 */
TOCSIN_EXTERN int tocsin_engine_dispatch(tocsin_engine *engine);

/**
 * MANUAL_CLOCK mode: moves the clock on by seconds (0 allowed) and delivers,
 * on the calling thread and in due-time order, every event due at or before
 * the new time, including events caused by the callbacks it calls, with
 * ticks beyond TOCSIN_TICK_BURST folded (see BOUNDED ROUNDS). While an
 * event is delivered the clock reads that event's due time; when the call
 * returns it reads the target. The boot, awake and wall clocks move together
 * (tocsin_engine_simulate_suspend() moves the awake one apart). Returns how many callbacks it called (>= 0),
 * or TOCSIN_EINVAL for NaN, negative, infinite or too large seconds (or a
 * step that would take the manual clock past 2^62 ns, about 146 years),
 * TOCSIN_ESTATE in other modes or from inside a callback, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_engine_advance(tocsin_engine *engine, double seconds);

/**
 * The engine's clock in seconds: CLOCK_BOOTTIME in real-clock modes, the
 * manual time (starting at 0) in MANUAL_CLOCK mode. Returns TOCSIN_OK, or
 * TOCSIN_EINVAL for a NULL argument, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_engine_now(tocsin_engine *engine, double *out);

/**
 * The wall clock alarms follow, in seconds since 1970-01-01 00:00 UTC:
 * CLOCK_REALTIME in real-clock modes; in MANUAL_CLOCK mode the simulated
 * one, which reads 0 until tocsin_engine_set_wall_clock(). Since 0.4.
 * Returns TOCSIN_OK, or TOCSIN_EINVAL for a NULL argument, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_engine_wall_clock(tocsin_engine *engine, double *out);

/**
 * MANUAL_CLOCK mode: simulates a suspend of the machine for seconds. The
 * boot clock (tocsin_engine_now()) and the wall clock move on by seconds;
 * the awake clock does not, so TOCSIN_CLOCK_AWAKE timers stand still. Then
 * delivers what fell due, as tocsin_engine_advance() does, except that the
 * clock already reads the end of the suspend: events that fell due during
 * it arrive late (their lateness says by how much), as after a real one.
 * tocsin_engine_advance() moves all three clocks together. Since 0.4.
 * Returns how many callbacks it called (>= 0), or the errors of
 * tocsin_engine_advance().
 */
TOCSIN_EXTERN int tocsin_engine_simulate_suspend(tocsin_engine *engine,
                                                 double seconds);

/**
 * MANUAL_CLOCK mode: sets the simulated wall clock to unix_seconds, forward
 * or back (the boot and awake clocks stay), and delivers what that makes
 * due: an alarm whose time it passed finishes, its lateness the wall time
 * past it. Since 0.4. Returns how many callbacks it called (>= 0), or
 * TOCSIN_EINVAL for NaN, a negative or infinite time or one above
 * TOCSIN_MAX_SECONDS, TOCSIN_ESTATE in other modes or from inside a
 * callback, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_engine_set_wall_clock(tocsin_engine *engine,
                                               double unix_seconds);

/* ------------------------------------------------------------- observers -- */

/** An engine-wide observer's id; 0 is never valid. */
typedef uint64_t tocsin_observer;

/**
 * Calls cb(engine, event, user_data) for every event of every timer of this
 * engine, where the engine's mode delivers events, before the timer's own
 * callback; timers without a callback are observed too. For add-ons that
 * follow timers they do not own (the desktop notifier, a JSON event log).
 * Stores the observer's id in *out (NULL allowed). Returns TOCSIN_EINVAL for
 * a NULL cb, TOCSIN_ECLOSED. Cost per delivered event: O(observers).
 */
TOCSIN_EXTERN int tocsin_engine_add_observer(tocsin_engine *engine,
                                             tocsin_callback cb,
                                             void *user_data,
                                             tocsin_observer *out);

/**
 * Removes an observer. When it returns (called from anywhere but a callback
 * on the delivery thread) the observer is not running and will not run
 * again, so user_data may be freed. Returns TOCSIN_ENOENT for an unknown id.
 */
TOCSIN_EXTERN int tocsin_engine_remove_observer(tocsin_engine *engine,
                                                tocsin_observer observer);

/* ---------------------------------------------------------------- timers -- */

/**
 * Creates an IDLE countdown of `seconds` (0 < seconds <= TOCSIN_MAX_SECONDS)
 * and stores its handle in *out. It does nothing until started.
 * Returns TOCSIN_EINVAL for NaN, zero, negative, infinite or too large
 * seconds and NULL pointers, TOCSIN_ENOMEM, TOCSIN_ECLOSED.
 * Cost: O(1) amortized.
 */
TOCSIN_EXTERN int tocsin_countdown_new(tocsin_engine *engine, double seconds,
                                       tocsin_timer *out);

/** Creates an IDLE stopwatch (counts up, never finishes). As above. */
TOCSIN_EXTERN int tocsin_stopwatch_new(tocsin_engine *engine,
                                       tocsin_timer *out);

/**
 * Frees a timer in any state; its handle becomes unknown (TOCSIN_ENOENT)
 * for good. Events of the timer that were not delivered yet are dropped.
 * When it returns (called from anywhere but the timer's own callback), no
 * callback of the timer is running or will run, so the caller may free
 * user_data at once: from another thread it waits for a running callback
 * of this timer to return. Cost: O(1).
 */
TOCSIN_EXTERN int tocsin_timer_free(tocsin_engine *engine, tocsin_timer timer);

/**
 * Sets the timer's callback and user_data (cb NULL: none). Events that fall
 * while a timer has no callback are dropped. The engine never touches
 * user_data; it belongs to the caller. A callback already running on the
 * delivery thread may finish after this returns.
 */
TOCSIN_EXTERN int tocsin_timer_set_callback(tocsin_engine *engine,
                                            tocsin_timer timer,
                                            tocsin_callback cb,
                                            void *user_data);

/**
 * Chooses which kinds of event reach the timer's callback: an OR of
 * TOCSIN_EVENTS_* bits (0: none; the default is TOCSIN_EVENTS_ALL). Other
 * kinds are not delivered to the callback; observers still see every event.
 * A STATE event that neither the callback nor an observer wants is never
 * queued, so a host that needs only FINISH (as with uv_timer_start or
 * g_timeout_add) pays for no other delivery. Events already queued are
 * filtered when delivered, by the bits current then. The bits stay with the
 * timer across runs and callback changes; they are not saved by
 * tocsin_engine_save(). Returns TOCSIN_EINVAL for bits outside
 * TOCSIN_EVENTS_ALL. Cost: O(1).
 */
TOCSIN_EXTERN int tocsin_timer_set_events(tocsin_engine *engine,
                                          tocsin_timer timer, unsigned events);

/** The timer's TOCSIN_EVENTS_* bits (>= 0), or a negative error code. */
TOCSIN_EXTERN int tocsin_timer_events(tocsin_engine *engine,
                                      tocsin_timer timer);

/**
 * Sets the tick interval (0: no ticks). Tick k is due when k x interval of
 * running time has passed; a tick that would fall at or after a countdown's
 * end is folded into FINISH. Every tick is delivered, each with its own
 * number, even when the host falls behind, up to TOCSIN_TICK_BURST in one
 * delivery round; beyond that a round folds them (see BOUNDED ROUNDS), so
 * any interval from 1 ns up is served. Set on a started timer, numbering
 * carries on from its running time: the next tick is the first multiple of
 * the new interval after it. Returns TOCSIN_EINVAL for NaN, negative,
 * infinite or too large intervals.
 */
TOCSIN_EXTERN int tocsin_timer_set_tick(tocsin_engine *engine,
                                        tocsin_timer timer,
                                        double interval_seconds);

/**
 * Sets the timer's label, a NUL-terminated UTF-8 string copied by the engine
 * (NULL or "": no label). Returns TOCSIN_EINVAL if it is not valid UTF-8 or
 * longer than TOCSIN_LABEL_MAX bytes.
 */
TOCSIN_EXTERN int tocsin_timer_set_label(tocsin_engine *engine,
                                         tocsin_timer timer,
                                         const char *label);

/**
 * Copies the label into buf as a NUL-terminated string of at most cap - 1
 * bytes, cut before a whole UTF-8 character, never inside one. Returns the
 * label's full length in bytes (>= 0, as snprintf: a result >= cap means it
 * was cut). buf may be NULL when cap is 0, to ask the length.
 */
TOCSIN_EXTERN int tocsin_timer_label(tocsin_engine *engine, tocsin_timer timer,
                                     char *buf, size_t cap);

/*
 * State changes. Each allowed change is delivered later as a STATE event;
 * one that is not allowed from the current state returns TOCSIN_ESTATE and
 * changes nothing.
 *
 *   start    IDLE, FINISHED, CANCELED -> RUNNING   (from the full duration,
 *                                                   elapsed 0, laps cleared)
 *   suspend  RUNNING -> SUSPENDED                  (time held exactly)
 *   resume   SUSPENDED -> RUNNING
 *   cancel   RUNNING, SUSPENDED -> CANCELED
 *
 * A timer stays RUNNING until the engine takes its FINISH for delivery: a
 * cancel or suspend that wins that race stops it. After tocsin_timer_cancel()
 * returns, no TICK or FINISH of that run is delivered (from another thread it
 * waits for a running callback of the timer to return); the run's last event
 * is STATE(CANCELED). Each returns TOCSIN_OK, TOCSIN_ESTATE, TOCSIN_ENOENT,
 * TOCSIN_EINVAL for a NULL engine, TOCSIN_ECLOSED, or TOCSIN_ENOMEM when the
 * engine cannot grow its tables for the run or the event (nothing changed
 * then either).
 * Cost: O(log n) in the number of armed timers.
 */
TOCSIN_EXTERN int tocsin_timer_start(tocsin_engine *engine, tocsin_timer timer);
TOCSIN_EXTERN int tocsin_timer_suspend(tocsin_engine *engine,
                                       tocsin_timer timer);
TOCSIN_EXTERN int tocsin_timer_resume(tocsin_engine *engine,
                                      tocsin_timer timer);
TOCSIN_EXTERN int tocsin_timer_cancel(tocsin_engine *engine,
                                      tocsin_timer timer);

/**
 * The one-shot in one call: creates a countdown of `seconds`, gives it the
 * callback cb (with user_data; NULL: none) for the events in `events`, starts
 * it, and stores its handle in *out (NULL allowed: the callback still gets
 * it in event->timer). The same as tocsin_countdown_new(),
 * tocsin_timer_set_events(), tocsin_timer_set_callback() and
 * tocsin_timer_start() in turn, but under one lock, and nothing is left
 * behind if it fails. In DEFAULT mode the callback may run on the engine
 * thread before this call returns. The timer stays until freed; its
 * callback may free it on FINISH. Returns TOCSIN_EINVAL for a bad `seconds` or `events`,
 * TOCSIN_ENOMEM, TOCSIN_ECLOSED. Cost: O(log n) in the number of armed timers.
 */
TOCSIN_EXTERN int tocsin_countdown_start(tocsin_engine *engine, double seconds,
                                         unsigned events, tocsin_callback cb,
                                         void *user_data, tocsin_timer *out);

/** Tick policies (tocsin_timer_set_tick_policy). */
enum { TOCSIN_TICKS_EVERY = 0, TOCSIN_TICKS_COALESCE = 1 };

/**
 * Chooses what happens to a timer's ticks that are all due when the engine
 * gets to them (after the process or the machine stalled, or a long
 * tocsin_engine_advance()): TOCSIN_TICKS_EVERY (the default) delivers each
 * one; TOCSIN_TICKS_COALESCE delivers one TICK for the latest of them, with
 * `tick` its number, `elapsed` its nominal time (tick x interval) and
 * `missed` how many were skipped. Only ticks due before any other event
 * (another timer's, a queued STATE) are merged, so events keep due-time
 * order. A timer nobody listens to skips ticks either way, and either policy
 * folds what a round cannot deliver (see BOUNDED ROUNDS). Any state; kept
 * across runs and saved. Since 0.3. Returns TOCSIN_EINVAL for another
 * policy, TOCSIN_ENOENT, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_timer_set_tick_policy(tocsin_engine *engine,
                                               tocsin_timer timer, int policy);

/** The largest leeway tocsin_timer_set_leeway() takes: a day. */
#define TOCSIN_LEEWAY_MAX_SECONDS 86400.0

/**
 * Lets the timer's events (its ticks and its FINISH) be delivered up to
 * leeway_seconds late, so that the engine fires it in the same wake-up as
 * others, as g_timeout_add_seconds() does (DispatchSourceTimer's leeway is
 * meant to, but libdispatch ignores it on Linux: bench/README.md, Leeway).
 * Each event falls due at the first multiple of the leeway on the boot
 * clock (CLOCK_BOOTTIME; an engine's manual clock when it has one) at or
 * after its deadline. That grid is the machine's, not the engine's: timers
 * with the same leeway, or with leeways that divide one another (0.25, 0.5,
 * 1 s), whose events are due within one step of it fire together, in every
 * engine of every process, and the thread or poll fd wakes once for them.
 * 100 stopwatches ticking every second at random phases wake the engine
 * once a second with a leeway of 1 s, and 100 times a second without.
 *
 * An event is never delivered before its deadline, nor later than the
 * leeway after it plus the system's wake-up latency (the same latency an
 * event without leeway has). Its `lateness` still counts from its
 * deadline, and `elapsed`, `remaining` and tick numbers are those of the
 * deadline, as always. Within one wake-up, events come in the order they
 * were armed, which may differ from the order of their deadlines. A leeway
 * of 0 (the default) keeps every event exactly at its deadline.
 *
 * Any state; set on a RUNNING timer it applies to the event due next. Kept
 * across runs and saved (tocsin_engine_save()). Since 0.8. Returns
 * TOCSIN_EINVAL for NaN, a negative leeway or one above
 * TOCSIN_LEEWAY_MAX_SECONDS, TOCSIN_ENOENT, TOCSIN_ECLOSED, TOCSIN_ENOMEM
 * (nothing changed). Cost: O(log n) on a RUNNING timer, O(1) otherwise.
 */
TOCSIN_EXTERN int tocsin_timer_set_leeway(tocsin_engine *engine,
                                          tocsin_timer timer,
                                          double leeway_seconds);

/**
 * Stores the timer's leeway in seconds (0 if none) in *out. Since 0.8.
 * Returns TOCSIN_EINVAL for a NULL out, TOCSIN_ENOENT, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_timer_leeway(tocsin_engine *engine, tocsin_timer timer,
                                      double *out);

/**
 * Changes a countdown's duration by delta_seconds (negative shortens) for
 * its current run: the remaining time and the FINISH deadline move with it,
 * exactly (to the nanosecond). Since 0.3.
 *
 *   IDLE, SUSPENDED  the new duration must stay above the elapsed time,
 *                    else TOCSIN_EINVAL and nothing changes
 *   RUNNING          a new duration above zero but at or below the elapsed
 *                    time finishes the countdown now: FINISH, then
 *                    STATE(FINISHED), are delivered the usual way, never
 *                    inside this call; a new duration of zero or less is
 *                    TOCSIN_EINVAL and the countdown runs on (to end it now,
 *                    cut it to its elapsed time, tocsin_timer_elapsed(),
 *                    once that is above zero)
 *   FINISHED         a positive delta runs it again with delta left, the
 *                    elapsed time carrying on from the old duration ("one
 *                    more minute" after the alarm); negative: TOCSIN_EINVAL
 *   CANCELED         TOCSIN_ESTATE
 *
 * Hosts learn of an adjustment by a STATE event with the timer's state
 * (RUNNING for a finished countdown run again; the same state otherwise)
 * whose `remaining` is the new time left; an adjustment that finishes the
 * countdown sends its FINISH instead. Ticks stay at k x interval of running
 * time; a tick at the new end is folded into the FINISH. The adjustment
 * lasts for the run: tocsin_timer_start() from FINISHED or CANCELED starts
 * again from the duration the countdown was created with. It is saved and
 * restored with the run (tocsin_engine_save()).
 * Returns TOCSIN_EINVAL for NaN, an infinity, zero, a stopwatch, or a new
 * duration of zero or above TOCSIN_MAX_SECONDS; TOCSIN_ESTATE, TOCSIN_ENOENT,
 * TOCSIN_ECLOSED, TOCSIN_ENOMEM (nothing changed). Cost: O(log n).
 */
TOCSIN_EXTERN int tocsin_timer_adjust(tocsin_engine *engine, tocsin_timer timer,
                                      double delta_seconds);

/** Clocks a timer can count (tocsin_timer_set_clock). */
enum { TOCSIN_CLOCK_BOOT = 0, TOCSIN_CLOCK_AWAKE = 1 };

/**
 * Puts an IDLE timer on a clock: TOCSIN_CLOCK_BOOT (the default) counts real
 * time, time the machine spends suspended included (CLOCK_BOOTTIME);
 * TOCSIN_CLOCK_AWAKE counts only time the machine is awake
 * (CLOCK_MONOTONIC), so a suspend pauses it (a pomodoro, a work timer).
 * elapsed and remaining are on the timer's clock; tocsin_engine_now() stays
 * the boot clock. Either way there is no kernel timer per timer and no
 * wakeup while nothing is due; after a suspend the engine may wake once
 * early for an AWAKE timer, and delivers nothing then. Kept across runs,
 * saved; restored from a file (tocsin_engine_load()), an AWAKE timer counts
 * of the time away only what the awake clock ran in the same boot: no
 * suspend, and nothing across a restart. Since 0.4.
 * Returns TOCSIN_ESTATE unless IDLE, TOCSIN_EINVAL for another clock or
 * TOCSIN_CLOCK_AWAKE on an alarm, TOCSIN_ENOENT, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_timer_set_clock(tocsin_engine *engine,
                                         tocsin_timer timer, int clock);

/** The timer's clock (>= 0, a TOCSIN_CLOCK_ value) or a negative error code. */
TOCSIN_EXTERN int tocsin_timer_clock(tocsin_engine *engine, tocsin_timer timer);

/**
 * Creates an IDLE alarm (*out) that finishes when the wall clock
 * (CLOCK_REALTIME) reaches unix_seconds; tocsin_timer_start() arms it. While
 * armed it follows every change of the wall clock (the kernel reports them:
 * timerfd TFD_TIMER_CANCEL_ON_SET): set forward past its time, it finishes
 * at once, its lateness the wall time past it; set back, it rings later. It
 * is never delivered before the wall clock reads its time. An alarm is a
 * countdown whose time left is always the time until its wall time:
 *
 *   remaining   the time until the wall clock reaches it (0 once past), in
 *               every state but FINISHED (0) and CANCELED (held)
 *   elapsed     how long it has run, on the boot clock (a wall-clock change
 *               does not move it)
 *   duration    elapsed + remaining
 *   suspend     it does not ring while SUSPENDED; its time left keeps
 *               shrinking; resumed, it rings at its time, or at once
 *               (lateness 0) if that has passed
 *   ticks       at k x interval of running time, as a countdown's
 *   start       from IDLE, FINISHED or CANCELED it aims at its time: one
 *               already past finishes at once (lateness 0)
 *   adjust      tocsin_timer_adjust() moves its time, for good; FINISHED
 *               with a positive delta, it rings again delta from now
 *   save/load   saved as its wall time; one whose time passed while the
 *               program was away is announced like a countdown that ran out
 *
 * Since 0.4. Returns TOCSIN_EINVAL for a NULL out, NaN, an infinity, a
 * negative time or one above TOCSIN_MAX_SECONDS (about 2070); TOCSIN_ENOMEM,
 * TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_alarm_new(tocsin_engine *engine, double unix_seconds,
                                   tocsin_timer *out);

/**
 * An alarm's wall-clock time in seconds since 1970-01-01 00:00 UTC. Since
 * 0.4. Returns TOCSIN_EINVAL for a NULL out or a timer that is not an
 * alarm, TOCSIN_ENOENT, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_timer_alarm_time(tocsin_engine *engine,
                                          tocsin_timer timer, double *out);

/*
 * WAKING A SUSPENDED MACHINE (since 0.6)
 *
 * The engine's own kernel timers (CLOCK_BOOTTIME, CLOCK_REALTIME) never
 * wake a suspended machine: a timer due while it sleeps rings when it wakes
 * for another reason, late by that much (its lateness says so). A timer
 * marked with tocsin_timer_set_wake() also arms the kernel's ALARM clocks:
 * the engine keeps one timerfd on CLOCK_BOOTTIME_ALARM armed for the
 * earliest running wake countdown and one on CLOCK_REALTIME_ALARM for the
 * earliest running wake alarm or calendar alarm (an absolute wall-clock
 * time, which follows changes of the wall clock by itself), each
 * TOCSIN_WAKE_LEAD_SECONDS before the deadline (or at the deadline once
 * that is closer than the lead), so that the system and its sound server are
 * back when the timer rings. The timer itself still rings at its exact time,
 * never early. Suspended, cancelled and finished timers are not armed.
 *
 * The kernel allows this only with CAP_WAKE_ALARM (checked when a timerfd
 * is created and again at every timerfd_settime) and only with an RTC that
 * can wake the machine. Without them a wake timer rings exactly as any
 * other; tocsin_engine_can_wake() says so, once, and
 * tocsin_engine_wake_reason() says why. Giving a user's service the
 * capability: AmbientCapabilities=CAP_WAKE_ALARM in its systemd unit (the
 * timer service ships it as an optional drop-in), or pam_systemd from
 * systemd 254 on, which grants it to local sessions.
 *
 * What the tests prove (as root, which has the capability): the timerfd
 * behind a wake timer exists on clock 9 (BOOTTIME_ALARM) or 8
 * (REALTIME_ALARM) and is armed the lead before the deadline
 * (/proc/PID/fdinfo), it moves when the timer does, and without the
 * capability the timer rings on time and the reason is given. What they
 * cannot prove here: that the machine really wakes (no suspend runs in a
 * container); that is the kernel's promise for these clocks.
 */

/** How long before its deadline a wake timer wakes the machine. */
#define TOCSIN_WAKE_LEAD_SECONDS 120.0

/**
 * Makes a countdown, alarm or calendar alarm wake a suspended machine (wake
 * 1) or not (0, the default), in any state; saved with the timer. Returns
 * TOCSIN_OK even where this process cannot wake the machine (the timer then
 * rings as before: see tocsin_engine_can_wake()); TOCSIN_EINVAL for a wake
 * other than 0 or 1, a stopwatch or a TOCSIN_CLOCK_AWAKE timer (a suspend
 * does not bring it closer); TOCSIN_ENOENT, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_timer_set_wake(tocsin_engine *engine,
                                        tocsin_timer timer, int wake);

/** 1 if the timer wakes the machine, 0 if not, or a negative error code. */
TOCSIN_EXTERN int tocsin_timer_wake(tocsin_engine *engine, tocsin_timer timer);

/**
 * 1 if this engine can arm timers that wake the machine, 0 if not (no
 * CAP_WAKE_ALARM, no wake-capable clock, a manual-clock engine, or the
 * kernel refused a later timerfd_settime), or a negative error code. The
 * first call (or the first wake timer) opens the wake timerfds; a refusal
 * is final for the engine.
 */
TOCSIN_EXTERN int tocsin_engine_can_wake(tocsin_engine *engine);

/**
 * Why this engine cannot wake the machine ("no CAP_WAKE_ALARM: ..."; ""
 * when it can), copied as tocsin_timer_label() copies a label; returns the
 * text's full length.
 */
TOCSIN_EXTERN int tocsin_engine_wake_reason(tocsin_engine *engine, char *buf,
                                            size_t cap);

/*
 * CALENDAR ALARMS (since 0.6)
 *
 * A calendar alarm rings at every occurrence of a calendar spec, in the
 * calendar-event syntax of systemd.time(7) (OnCalendar=):
 *
 *   [WEEKDAYS] [DATE] [TIME] [ZONE]      any part may be left out
 *   WEEKDAYS   Mon, Mon..Fri, Sat,Sun    names or their 3-letter forms, any
 *                                        case; lists and ranges
 *   DATE       Y-M-D or M-D              each field *, a value, a list a,b,
 *                                        a range a..b or a repetition a/n or
 *                                        a..b/n: *-*-01, *-12-25, 2027-*-*
 *              Y-M~D                     days counted back from the month's
 *                                        end: *-*~01 is its last day,
 *                                        *-02~03 the third-last of February
 *   TIME       h:m or h:m:s              the same field forms: 07:00, *:0/15,
 *                                        9..17:00, 08:30:15; whole seconds
 *   ZONE       UTC or an IANA name       Europe/Berlin; without one, the
 *                                        local zone (TZ, else /etc/localtime)
 *   minutely hourly daily weekly monthly yearly annually quarterly
 *   semiannually, optionally followed by a ZONE
 *
 * A date left out is every day (*-*-*); a time left out is midnight
 * (00:00:00); seconds left out are :00. tocsin_calendar_check() gives the
 * spec's normalized form as systemd prints it ("Mon..Fri 07:00" is
 * "Mon..Fri *-*-* 07:00:00").
 *
 * An occurrence is the first instant at which the wall clock of the spec's
 * zone matches. Where a daylight-saving change skips local times, the
 * occurrences in the gap ring once, at the moment of the change (02:30 on
 * 2027-03-28 in Europe/Berlin rings at 01:00 UTC, 03:00 CEST); a local
 * time that occurs twice rings once, at its first occurrence. Elsewhere the
 * occurrences are those of systemd-analyze calendar, which the tests use as
 * their oracle (systemd instead drops the ones in a gap). Zones are read
 * from their compiled files (TZif, under TZDIR, else /usr/share/zoneinfo,
 * with the rule in their footer for times past their table) with libc
 * alone, changing no process state (no setenv, no tzset): every function
 * here is thread-safe. A zone's file is read again once replaced (a tzdata
 * upgrade), and the local zone is looked up afresh at every occurrence, so
 * an alarm follows a change of the system's zone from its next ring on.
 */

/**
 * The next occurrence of spec strictly after after_unix_seconds, in seconds
 * since 1970-01-01 00:00 UTC (a whole number), in *out. Needs no engine;
 * thread-safe. Cost: 0.2 to 1.1 microseconds (measured by bench/calendar.sh
 * in Tocsin's source); the
 * last 8 specs are kept parsed, so calling it again with the same spec
 * (listing occurrences) does not parse it again.
 * Returns TOCSIN_EINVAL for a spec that does not parse (ask
 * tocsin_calendar_check() why), an unknown time zone, a NULL pointer, NaN
 * or a time more than 10^11 s from 1970; TOCSIN_ERANGE if the spec has no
 * occurrence after that time before the year 2200 ("2020-01-01 00:00").
 */
TOCSIN_EXTERN int tocsin_calendar_next(const char *spec,
                                       double after_unix_seconds,
                                       double *out_unix_seconds);

/**
 * Checks spec. If it parses, copies its normalized form into buf (as
 * tocsin_timer_label() copies a label: at most cap - 1 bytes and a NUL) and
 * returns its full length (>= 0). If not, copies the reason, naming the
 * column (from 1) where the fault starts, into buf ("column 10: 'Mun' is not
 * a weekday, a date (Y-M-D), a time (h:m:s) or a time zone"; "column 7:
 * unknown time zone 'Mars/Olympus'") and returns TOCSIN_EINVAL. A reason
 * quotes at most 64 bytes of the spec (a longer part is cut between
 * characters and ends in an ellipsis, U+2026), so 256 bytes hold every
 * reason, whole. buf may be NULL when cap is 0. Thread-safe.
 */
TOCSIN_EXTERN int tocsin_calendar_check(const char *spec, char *buf,
                                        size_t cap);

/**
 * Creates an IDLE calendar alarm (*out) that rings at every occurrence of
 * spec once started. It is an alarm (see tocsin_alarm_new()) whose time is
 * always its coming occurrence, which tocsin_timer_alarm_time() gives:
 *
 *   start       from IDLE or CANCELED it aims at the first occurrence
 *               strictly after the wall clock now
 *   a ring      at each occurrence: a FINISH with event->state RUNNING,
 *               event->remaining the seconds until the next occurrence and
 *               event->missed the occurrences passed over since the last
 *               ring (0 when on time); then it runs on towards the next
 *               one. No STATE event for the step; it never finishes on its
 *               own, except after the last occurrence of a spec that has
 *               a last one ("2027-01-01"): then as a one-shot alarm
 *   never early it rings when the wall clock reads the occurrence, never
 *               before; it follows wall-clock changes as an alarm does:
 *               set forward past occurrences, it rings once at once, the
 *               ones passed over in `missed` (counted up to 100000); set
 *               back, it never rings twice for one occurrence
 *   SUSPENDED   it does not ring; resumed after occurrences passed, it
 *               rings once at once (missed = the ones before the last
 *               passed), then carries on
 *   cancel      stops it; started again, it aims at the next occurrence
 *               after now
 *   elapsed     running time since it was started (wall-clock changes do
 *               not move it); remaining: the time until the coming
 *               occurrence (in every state; as an alarm's)
 *   adjust      not allowed (TOCSIN_EINVAL): its times are the spec's
 *   clock       always the wall clock (TOCSIN_CLOCK_AWAKE: TOCSIN_EINVAL)
 *   save/load   saved with its spec and coming occurrence (kind "calendar"
 *               in timer-file.md); occurrences that passed while the
 *               program was away give one held FINISH (state RUNNING,
 *               missed = the ones before the last), delivered when a
 *               callback is set as a countdown's held FINISH
 *   manual      on a TOCSIN_MANUAL_CLOCK engine it follows
 *               tocsin_engine_set_wall_clock() (a jump past occurrences:
 *               one ring, the rest in missed) and tocsin_engine_advance()
 *               (each occurrence on its own, at its exact time)
 *
 * Returns TOCSIN_EINVAL as tocsin_calendar_next() does, TOCSIN_ERANGE for a
 * spec with no occurrence after now within TOCSIN_MAX_SECONDS of 1970,
 * TOCSIN_ENOMEM, TOCSIN_ECLOSED. Starting one whose spec has no occurrence
 * left returns TOCSIN_ERANGE.
 */
TOCSIN_EXTERN int tocsin_calendar_new(tocsin_engine *engine, const char *spec,
                                      tocsin_timer *out);

/**
 * Copies a calendar alarm's spec, normalized, into buf as
 * tocsin_calendar_check() does and returns its full length (>= 0);
 * TOCSIN_EINVAL for a timer that is not a calendar alarm.
 */
TOCSIN_EXTERN int tocsin_timer_calendar(tocsin_engine *engine,
                                        tocsin_timer timer, char *buf,
                                        size_t cap);

/**
 * Skips rings of a calendar alarm without removing it (new after 0.8.0): the
 * next `count` rings, counted from its coming one (rings already skipped
 * are not counted again); count 0 undoes any skip, and the alarm comes to
 * its first occurrence after now again. A skipped ring gives no FINISH, is
 * not counted in event->missed and does not wake the machine;
 * tocsin_timer_alarm_time() is the ring that will come. In every state but
 * FINISHED; RUNNING, IDLE or SUSPENDED it queues a STATE event with the new
 * time left (as tocsin_timer_adjust() does). The skip is a wall time (the
 * occurrence after the skipped ones), so it holds across wall-clock and
 * daylight-saving changes, and it is saved ("skip_until_unix_ns" in
 * timer-file.md). Thread-safe; O(count) searches of the spec.
 *
 * Returns TOCSIN_EINVAL for a timer that is not a calendar alarm or a count
 * over 100000, TOCSIN_ERANGE if the spec has no ring after the skipped
 * ones, TOCSIN_ESTATE once FINISHED, TOCSIN_ENOENT, TOCSIN_ECLOSED,
 * TOCSIN_ENOMEM (nothing changed in any of these).
 */
TOCSIN_EXTERN int tocsin_calendar_skip(tocsin_engine *engine,
                                       tocsin_timer timer, unsigned count);

/**
 * Skips every ring of a calendar alarm before unix_seconds (a wall-clock
 * time, as tocsin_engine_wall_clock() reads it; a holiday: the first day
 * back at 00:00), in place of any skip before (new after 0.8.0). As
 * tocsin_calendar_skip() otherwise. Returns TOCSIN_EINVAL for a time not
 * after the wall clock now or beyond TOCSIN_MAX_SECONDS, and as
 * tocsin_calendar_skip().
 */
TOCSIN_EXTERN int tocsin_calendar_skip_until(tocsin_engine *engine,
                                             tocsin_timer timer,
                                             double unix_seconds);

/**
 * Whether a calendar alarm's rings are skipped (new after 0.8.0): 1, with the
 * wall-clock time before which they are in *unix_seconds_out (NULL
 * allowed); 0 if none is (a skip whose time has passed is none; any other
 * kind of timer: 0). TOCSIN_ENOENT, TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_calendar_skipped_until(tocsin_engine *engine,
                                                tocsin_timer timer,
                                                double *unix_seconds_out);

/**
 * Records a lap on a RUNNING or SUSPENDED timer (either kind) and stores the
 * lap's own length in seconds in *lap_out (NULL allowed): the running time
 * since the previous lap, or since the start for the first.
 * Returns TOCSIN_ESTATE in other states.
 */
TOCSIN_EXTERN int tocsin_timer_lap(tocsin_engine *engine, tocsin_timer timer,
                                   double *lap_out);

/**
 * Copies up to cap lap lengths (seconds, oldest first) of the current run
 * into buf and returns how many laps there are (>= 0). buf may be NULL when
 * cap is 0.
 */
TOCSIN_EXTERN int tocsin_timer_laps(tocsin_engine *engine, tocsin_timer timer,
                                    double *buf, size_t cap);

/* --------------------------------------------------------------- queries -- */

/** The timer's state (>= 0, a TOCSIN_ state) or a negative error code. */
TOCSIN_EXTERN int tocsin_timer_state(tocsin_engine *engine, tocsin_timer timer);

/** Seconds of running time of the current run, exact to the nanosecond. */
TOCSIN_EXTERN int tocsin_timer_elapsed(tocsin_engine *engine,
                                       tocsin_timer timer, double *out);

/**
 * Countdown: seconds left (the full duration when IDLE, 0 once FINISHED,
 * never negative). Stopwatch: -1.
 */
TOCSIN_EXTERN int tocsin_timer_remaining(tocsin_engine *engine,
                                         tocsin_timer timer, double *out);

/** Countdown: its duration in seconds. Stopwatch: -1. */
TOCSIN_EXTERN int tocsin_timer_duration(tocsin_engine *engine,
                                        tocsin_timer timer, double *out);

/* ---------------------------------------------------------- persistence -- */

/**
 * Stores the handles of the engine's timers, in creation order, in buf (up
 * to cap of them) and returns how many timers the engine holds (>= 0), so a
 * result larger than cap means buf was too small. buf may be NULL when cap
 * is 0. Cost: O(n log n).
 */
TOCSIN_EXTERN int tocsin_engine_timers(tocsin_engine *engine, tocsin_timer *buf,
                                       size_t cap);

/**
 * Writes every timer of the engine to the file at path: kind, label,
 * duration, tick interval, state, running time, laps, and the realtime
 * clock at the save. The format is documented in timer-file.md:
 * share/doc/tocsin/ after make install, /usr/share/doc/libtocsin-dev/ from
 * the Debian package, docs/ in the source. The write is atomic (a temporary file in the same folder, fsync, rename, fsync
 * of the folder): a crash or power loss leaves the old file or the new one,
 * never a mix. The file is created with mode 0600. Returns TOCSIN_EIO if it
 * cannot be written (a full disk, a read-only folder, no permission): the
 * file at path is then untouched, no temporary file is left, and errno says
 * why (ENOSPC, EROFS, EACCES...). TOCSIN_EINVAL for NULL arguments,
 * TOCSIN_ECLOSED.
 */
TOCSIN_EXTERN int tocsin_engine_save(tocsin_engine *engine, const char *path);

/**
 * Adds the timers saved at path to the engine (its own timers stay), under
 * new handles, and stores how many in *restored_out (NULL allowed); find
 * them with tocsin_engine_timers() (they come last, in the file's order).
 *
 * The time away counts for timers that were running, in every engine
 * mode. Within the same boot (the file's boot id is the running kernel's)
 * it is measured on the boot clock, which no change of the wall clock moves
 * (an NTP step, the user setting the time); after a reboot, or for a file
 * without a boot id, on the realtime clock, and if that clock went
 * backwards since the save the time away counts as zero: nothing finishes
 * early and no time goes negative. An AWAKE timer counts only what the
 * awake clock ran in the same boot (nothing after a reboot); an alarm aims
 * at its wall-clock time as ever. A suspended timer keeps its remaining
 * time exactly; a stopwatch keeps counting; ticks missed while away are not
 * replayed. A countdown that ran out while away is restored FINISHED, and
 * its FINISH (then STATE(FINISHED)) is held until a callback is set on it,
 * then delivered with lateness = how long ago it ran out. Restoring makes
 * no STATE events of its own.
 *
 * Returns TOCSIN_EIO for a missing or unreadable file (errno then says why:
 * ENOENT, EACCES, EISDIR...), TOCSIN_ECORRUPT for
 * a truncated, corrupt or future-version file or impossible values,
 * TOCSIN_ENOMEM, TOCSIN_EINVAL, TOCSIN_ECLOSED. On any failure the engine is
 * exactly as it was: nothing half-loaded.
 */
TOCSIN_EXTERN int tocsin_engine_load(tocsin_engine *engine, const char *path,
                                     size_t *restored_out);

#ifdef __cplusplus
}
#endif

#endif /* TOCSIN_H */

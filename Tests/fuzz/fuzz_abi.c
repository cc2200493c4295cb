/* A libFuzzer target: bytes become a sequence of C ABI calls on a
 * manual-clock engine, with hostile arguments (NaN, infinities, negative and
 * huge seconds, stale and foreign handles, invalid UTF-8, odd buffer sizes),
 * callbacks that cancel, free and create timers or free the engine, and raw
 * bytes loaded as a timer file, calendar specs made of their syntax's pieces
 * and raw bytes, tiny (1 ns) and huge (100 years) intervals. Any crash,
 * sanitizer report, hang (a round that does not end: -timeout) or broken
 * promise (checked below) is a finding.
 *
 *   make test-fuzz FUZZ_SECONDS=60          (corpus: Tests/fuzz/corpus)
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tocsin.h"

enum { SLOTS = 16, CALLBACK_BUDGET = 2000 };

typedef struct {
    const uint8_t *data;
    size_t size, at;
    tocsin_engine *engine;
    int engine_freed;
    int callbacks;
    tocsin_timer timers[SLOTS];
    /* The current delivery round's TICK callbacks, and the timers that
       ticked past TOCSIN_TICK_BURST of them (each at most once). */
    int round_ticks;
    int folded_count;
    tocsin_timer folded[64];
} state;

static uint8_t next(state *s) { return s->at < s->size ? s->data[s->at++] : 0; }

static double seconds(state *s) {
    static const double special[] = {NAN, INFINITY, -INFINITY, -1, 0, -0.0, 1e-12, 1e300, TOCSIN_MAX_SECONDS,
                                     TOCSIN_MAX_SECONDS * 2, 0.5, 1, 2.5, 5e-324, 1e-9, 3e-9};
    uint8_t byte = next(s);
    if (byte < 26) return special[byte % (sizeof special / sizeof special[0])];
    return (byte - 25) * 0.01 * (1 + next(s) % 8);
}

static tocsin_timer timer(state *s) {
    uint8_t byte = next(s);
    if (byte == 255) return 0;
    if (byte == 254) return ~(tocsin_timer)0;
    return s->timers[byte % SLOTS];
}

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "broken promise: %s\n", what);
        abort();
    }
}

static int is_status(int rc) { return rc >= TOCSIN_ERANGE && rc <= 0; }

/* A calendar spec: pieces of the syntax (weekdays, ranges, lists,
   repetitions, the month's end, zones, shorthands) and raw bytes. */
static void calendar_spec(state *s, char *spec, size_t cap) {
    static const char *pieces[] = {"Mon", "..", ",", "Fri", "sunday", "*", "-", "~", ":", "/", "07", "00", "1",
                                   "31", "29", "2027", "2200", " ", "UTC", "Europe/Berlin", "Australia/Lord_Howe",
                                   "daily", "monthly", "0/15", "9..17", "../", "Etc/GMT+14", "60", "-1", "\xff"};
    size_t length = 0, count = next(s) % 12;
    spec[0] = 0;
    for (size_t i = 0; i < count; i++) {
        uint8_t byte = next(s);
        char raw[2] = {(char)(byte ? byte : ' '), 0};
        const char *piece = byte < 2 * (sizeof pieces / sizeof pieces[0]) ? pieces[byte / 2] : raw;
        size_t size = strlen(piece);
        if (length + size >= cap) break;
        memcpy(spec + length, piece, size + 1);
        length += size;
    }
}

static void callback(tocsin_engine *engine, const tocsin_event *event, void *user) {
    state *s = user;
    check(event->kind >= TOCSIN_EVENT_TICK && event->kind <= TOCSIN_EVENT_FINISH, "event kind");
    check(event->elapsed >= 0 && event->lateness >= 0, "event times are not negative");
    check(event->remaining >= 0 || event->remaining == -1, "remaining is -1 or not negative");
    if (event->kind == TOCSIN_EVENT_TICK && ++s->round_ticks > TOCSIN_TICK_BURST) {
        /* Past the burst a round folds: each timer ticks at most once more. */
        for (int i = 0; i < s->folded_count; i++) check(s->folded[i] != event->timer, "one folded tick per timer and round");
        if (s->folded_count < 64) s->folded[s->folded_count++] = event->timer;
    }
    if (++s->callbacks > CALLBACK_BUDGET) {
        /* Ticks are bounded by the rounds (tocsin.h, BOUNDED ROUNDS): a 1 ns
           tick over 100 years costs one burst per advance. What callbacks
           cause is not: past the budget, a FINISH stops its timer. */
        if (event->kind != TOCSIN_EVENT_TICK) tocsin_timer_cancel(engine, event->timer);
        return;
    }
    switch (next(s) % 8) {
    case 0: tocsin_timer_cancel(engine, timer(s)); break;
    case 1: tocsin_timer_free(engine, timer(s)); break;
    case 2: tocsin_timer_free(engine, event->timer); break;
    case 3: {
        tocsin_timer fresh = 0;
        if (tocsin_countdown_new(engine, seconds(s), &fresh) == TOCSIN_OK) {
            tocsin_timer_set_callback(engine, fresh, callback, s);
            tocsin_timer_start(engine, fresh);
            s->timers[next(s) % SLOTS] = fresh;
        }
        break;
    }
    case 4: check(tocsin_engine_advance(engine, 1) == TOCSIN_ESTATE, "no advance inside a callback"); break;
    case 5:
        if (next(s) == 0xEF) { /* rarely: free the engine from inside its own callback */
            tocsin_engine_free(engine);
            s->engine_freed = 1;
        }
        break;
    default: break;
    }
}

/* Before a call that delivers: a new round. */
static state *round_of(state *s) {
    s->round_ticks = 0;
    s->folded_count = 0;
    return s;
}

static void load_bytes(state *s) {
    size_t length = next(s);
    length = length * 4 + next(s);
    if (length > s->size - s->at) length = s->size - s->at;
    int fd = memfd_create("tocsin-fuzz", 0);
    if (fd < 0) return;
    if (write(fd, s->data + s->at, length) == (ssize_t)length) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        int before = tocsin_engine_timers(s->engine, NULL, 0);
        size_t restored = 0;
        int rc = tocsin_engine_load(s->engine, path, &restored);
        int after = tocsin_engine_timers(s->engine, NULL, 0);
        check(rc == TOCSIN_OK ? after == before + (int)restored : after == before, "a failed load changes nothing");
        check(rc == TOCSIN_OK || rc == TOCSIN_ECORRUPT || rc == TOCSIN_ENOMEM, "load status");
    }
    s->at += length;
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    state s = {data, size, 0, NULL, 0, 0, {0}, 0, 0, {0}};
    tocsin_engine *other = NULL;
    if (tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &s.engine) != TOCSIN_OK) return 0;
    tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &other);
    tocsin_timer foreign = 0;
    tocsin_countdown_new(other, 1, &foreign);
    char buffer[64];
    double values[8], value;
    while (s.at < s.size && !s.engine_freed) {
        tocsin_engine *e = s.engine;
        int rc = 0;
        switch (next(&s) % 42) {
        case 0: rc = tocsin_countdown_new(e, seconds(&s), &s.timers[next(&s) % SLOTS]); break;
        case 1: rc = tocsin_stopwatch_new(e, &s.timers[next(&s) % SLOTS]); break;
        case 2: rc = tocsin_timer_start(e, timer(&s)); break;
        case 3: rc = tocsin_timer_suspend(e, timer(&s)); break;
        case 4: rc = tocsin_timer_resume(e, timer(&s)); break;
        case 5: rc = tocsin_timer_cancel(e, timer(&s)); break;
        case 6: rc = tocsin_timer_free(e, timer(&s)); break;
        case 7: rc = tocsin_timer_lap(e, timer(&s), next(&s) % 2 ? &value : NULL); break;
        case 8: rc = tocsin_timer_set_tick(e, timer(&s), seconds(&s)); break;
        case 9: rc = tocsin_timer_set_callback(e, timer(&s), next(&s) % 4 ? callback : NULL, &s); break;
        case 10: {
            char label[40];
            size_t length = next(&s) % sizeof label;
            for (size_t i = 0; i < length; i++) label[i] = (char)next(&s);
            label[length] = 0;
            rc = tocsin_timer_set_label(e, timer(&s), next(&s) % 8 ? label : NULL);
            break;
        }
        case 11: {
            size_t cap = next(&s) % (sizeof buffer + 1);
            rc = tocsin_timer_label(e, timer(&s), cap ? buffer : NULL, cap);
            if (rc >= 0 && cap > 0) check(strlen(buffer) < cap, "label is NUL-terminated within cap");
            break;
        }
        case 12: rc = tocsin_engine_advance(round_of(&s)->engine, seconds(&s)); break;
        case 13: rc = tocsin_timer_state(e, timer(&s)); check(rc < 0 || rc <= TOCSIN_CANCELED, "state"); break;
        case 14:
            rc = tocsin_timer_elapsed(e, timer(&s), &value);
            if (rc == TOCSIN_OK) check(value >= 0, "elapsed is not negative");
            break;
        case 15:
            rc = tocsin_timer_remaining(e, timer(&s), &value);
            if (rc == TOCSIN_OK) check(value >= 0 || value == -1, "remaining");
            break;
        case 16: rc = tocsin_timer_laps(e, timer(&s), values, next(&s) % 9); break;
        case 17: rc = tocsin_timer_start(e, foreign); check(rc == TOCSIN_ENOENT, "foreign handles are unknown"); break;
        case 18: rc = tocsin_engine_fd(e); check(rc == TOCSIN_ESTATE, "no fd on a manual clock"); break;
        case 19: rc = tocsin_engine_timers(e, (tocsin_timer *)values, next(&s) % 9); break;
        case 20: load_bytes(&s); break;
        case 21: rc = tocsin_timer_duration(e, timer(&s), &value); break;
        case 22: rc = tocsin_engine_dispatch(e); check(rc == TOCSIN_ESTATE, "no dispatch on a manual clock"); break;
        case 23: rc = tocsin_timer_set_events(e, timer(&s), next(&s) % 32); break;
        case 24: {
            int slot = next(&s) % (SLOTS + 1); /* SLOTS: no out pointer */
            rc = tocsin_countdown_start(e, seconds(&s), next(&s) % 32, next(&s) % 4 ? callback : NULL, &s,
                                        slot < SLOTS ? &s.timers[slot] : NULL);
            break;
        }
        case 25:
            rc = tocsin_timer_events(e, timer(&s));
            check(rc < 0 || (rc & ~TOCSIN_EVENTS_ALL) == 0, "events are TOCSIN_EVENTS_* bits");
            break;
        case 26: {
            double delta = seconds(&s);
            tocsin_timer t = timer(&s);
            rc = tocsin_timer_adjust(e, t, next(&s) % 2 ? -delta : delta);
            if (rc == TOCSIN_OK && tocsin_timer_remaining(e, t, &value) == TOCSIN_OK)
                check(value >= 0 && value <= TOCSIN_MAX_SECONDS, "adjusted remaining in range");
            break;
        }
        case 27: rc = tocsin_timer_set_clock(e, timer(&s), (int)(next(&s) % 4) - 1); break;
        case 28:
            rc = tocsin_timer_clock(e, timer(&s));
            check(rc < 0 || rc == TOCSIN_CLOCK_BOOT || rc == TOCSIN_CLOCK_AWAKE, "a clock is a TOCSIN_CLOCK_ value");
            break;
        case 29: {
            int slot = next(&s) % (SLOTS + 1); /* SLOTS: no out pointer */
            rc = tocsin_alarm_new(e, next(&s) % 2 ? seconds(&s) : -seconds(&s), slot < SLOTS ? &s.timers[slot] : NULL);
            break;
        }
        case 30: rc = tocsin_timer_alarm_time(e, timer(&s), next(&s) % 4 ? &value : NULL); break;
        case 31: rc = tocsin_engine_simulate_suspend(round_of(&s)->engine, next(&s) % 2 ? seconds(&s) : -seconds(&s)); break;
        case 32: rc = tocsin_engine_set_wall_clock(round_of(&s)->engine, next(&s) % 2 ? seconds(&s) : -seconds(&s)); break;
        case 33:
            rc = tocsin_engine_wall_clock(e, &value);
            check(rc != TOCSIN_OK || value >= 0, "a manual wall clock never reads below 0");
            break;
        case 34: {
            char spec[96];
            calendar_spec(&s, spec, sizeof spec);
            double after = next(&s) % 2 ? seconds(&s) * 1e6 : -seconds(&s);
            rc = tocsin_calendar_next(next(&s) % 16 ? spec : NULL, after, next(&s) % 8 ? &value : NULL);
            if (rc == TOCSIN_OK) check(value > after && value == floor(value), "the next occurrence is a later whole second");
            break;
        }
        case 35: {
            char spec[96];
            calendar_spec(&s, spec, sizeof spec);
            size_t cap = next(&s) % (sizeof buffer + 1);
            rc = tocsin_calendar_check(spec, cap ? buffer : NULL, cap);
            if (cap > 0) check(strlen(buffer) < cap, "the text is NUL-terminated within cap");
            if (rc == TOCSIN_EINVAL && cap > 7) check(strncmp(buffer, "column ", 7) == 0, "a reason names its column");
            break;
        }
        case 36: {
            char spec[96];
            int slot = next(&s) % (SLOTS + 1); /* SLOTS: no out pointer */
            calendar_spec(&s, spec, sizeof spec);
            rc = tocsin_calendar_new(e, spec, slot < SLOTS ? &s.timers[slot] : NULL);
            break;
        }
        case 37: {
            size_t cap = next(&s) % (sizeof buffer + 1);
            rc = tocsin_timer_calendar(e, timer(&s), cap ? buffer : NULL, cap);
            if (rc >= 0 && cap > 0) check(strlen(buffer) < cap, "a spec is NUL-terminated within cap");
            break;
        }
        case 38: rc = tocsin_calendar_skip(e, timer(&s), next(&s) % 4 ? next(&s) % 8 : 100000u + next(&s)); break;
        case 39: {
            double wall = 0;
            tocsin_engine_wall_clock(e, &wall);
            rc = tocsin_calendar_skip_until(e, timer(&s), next(&s) % 2 ? wall + seconds(&s) * 86400 : seconds(&s));
            break;
        }
        case 40:
            rc = tocsin_calendar_skipped_until(e, timer(&s), next(&s) % 2 ? &value : NULL);
            check(rc == 0 || rc == 1 || rc == TOCSIN_ENOENT || rc == TOCSIN_EINVAL || rc == TOCSIN_ECLOSED, "skipped_until: 0, 1 or a status");
            break;
        case 41: rc = tocsin_timer_set_tick_policy(e, timer(&s), (int)(next(&s) % 4) - 1); break;
        default: rc = tocsin_engine_now(e, &value); check(rc == TOCSIN_OK && value >= 0, "now"); break;
        }
        check(rc >= 0 || is_status(rc), "every failure is a documented status");
    }
    if (!s.engine_freed) tocsin_engine_free(s.engine);
    tocsin_engine_free(other);
    return 0;
}

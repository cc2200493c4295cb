/* Choosing which events reach a callback (tocsin_timer_set_events), and the
 * one-call one-shot (tocsin_countdown_start). */
#include <poll.h>
#include <string.h>

#include "harness.h"

static tocsin_engine *engine_in(unsigned mode) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(mode, &engine));
    return engine;
}

static void reset(event_log *log) { atomic_store(&log->count, 0); }

static void events_default_to_all_and_reject_other_bits(void) {
    tocsin_engine *engine = engine_in(TOCSIN_ENGINE_MANUAL_CLOCK);
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 1, &timer));
    CHECK_EQ(TOCSIN_EVENTS_ALL, tocsin_timer_events(engine, timer));
    CHECK_EQ(14, TOCSIN_EVENTS_ALL);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_events(engine, timer, 1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_events(engine, timer, 16));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_events(engine, timer, ~0u));
    CHECK_EQ(TOCSIN_EVENTS_ALL, tocsin_timer_events(engine, timer)); /* a failed call changes nothing */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, timer, TOCSIN_EVENTS_FINISH | TOCSIN_EVENTS_TICK));
    CHECK_EQ(TOCSIN_EVENTS_FINISH | TOCSIN_EVENTS_TICK, tocsin_timer_events(engine, timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, timer, 0));
    CHECK_EQ(0, tocsin_timer_events(engine, timer));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_set_events(engine, timer + 1, 0));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_events(engine, 0));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_set_events(NULL, timer, 0));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_timer_events(NULL, timer));
    tocsin_timer_free(engine, timer);
    CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_events(engine, timer));
    tocsin_timer reused = 0; /* a slot reused after free starts from ALL again */
    CHECK_EQ(TOCSIN_OK, tocsin_stopwatch_new(engine, &reused));
    CHECK_EQ(TOCSIN_EVENTS_ALL, tocsin_timer_events(engine, reused));
    tocsin_engine_close(engine);
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_timer_set_events(engine, reused, 0));
    tocsin_engine_free(engine);
}

static void the_callback_gets_only_its_kinds_observers_get_all(void) {
    tocsin_engine *engine = engine_in(TOCSIN_ENGINE_MANUAL_CLOCK);
    static event_log own, ticks_only, observed;
    reset(&own), reset(&ticks_only), reset(&observed);
    tocsin_timer finish_only = 0, ticking = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 3, &finish_only));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, finish_only, record_event, &own));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, finish_only, 1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, finish_only, TOCSIN_EVENTS_FINISH));
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 3, &ticking));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_tick(engine, ticking, 1));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, ticking, TOCSIN_EVENTS_TICK));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, ticking, record_event, &ticks_only));
    tocsin_timer_start(engine, finish_only);
    tocsin_engine_advance(engine, 5);
    CHECK(!strcmp(event_summary(&own), "F"));
    CHECK(own.events[0].timer == finish_only && own.events[0].remaining == 0);

    /* An observer sees every event of a timer whose callback wants fewer. */
    tocsin_observer id = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_add_observer(engine, record_event, &observed, &id));
    tocsin_timer_start(engine, ticking);
    tocsin_engine_advance(engine, 5);
    CHECK(!strcmp(event_summary(&ticks_only), "T1 T2"));
    CHECK(!strcmp(event_summary(&observed), "S1 T1 T2 F S3"));
    tocsin_engine_free(engine);
}

static void unwanted_state_events_are_never_queued(void) {
    tocsin_engine *engine = engine_in(TOCSIN_ENGINE_MANUAL_CLOCK);
    static event_log log;
    reset(&log);
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 2, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, timer, record_event, &log));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, timer, TOCSIN_EVENTS_FINISH));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    CHECK_EQ(0, tocsin_engine_advance(engine, 0)); /* STATE(RUNNING) was not queued */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_suspend(engine, timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_resume(engine, timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, timer));
    CHECK_EQ(0, tocsin_engine_advance(engine, 5));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer)); /* the bits stay across runs */
    CHECK_EQ(1, tocsin_engine_advance(engine, 5)); /* FINISH only */
    CHECK(!strcmp(event_summary(&log), "F"));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, timer, record_event, &log)); /* and across callbacks */
    CHECK_EQ(TOCSIN_EVENTS_FINISH, tocsin_timer_events(engine, timer));
    tocsin_engine_free(engine);
}

static int readable(int fd) {
    struct pollfd entry = {fd, POLLIN, 0};
    return poll(&entry, 1, 0) == 1;
}

/* Seen from a host's poll loop: starting a FINISH-only timer wakes nothing. */
static void unwanted_state_events_leave_the_fd_quiet(void) {
    tocsin_engine *engine = engine_in(TOCSIN_ENGINE_POLLED);
    static event_log log;
    reset(&log);
    int fd = tocsin_engine_fd(engine);
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_start(engine, 60, TOCSIN_EVENTS_FINISH, record_event, &log, &timer));
    CHECK(!readable(fd));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, timer));
    CHECK(!readable(fd));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, timer, TOCSIN_EVENTS_ALL));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    CHECK(readable(fd));
    CHECK_EQ(1, tocsin_engine_dispatch(engine));
    CHECK(!strcmp(event_summary(&log), "S1"));
    tocsin_engine_free(engine);
}

static void queued_events_are_filtered_when_delivered(void) {
    tocsin_engine *engine = engine_in(TOCSIN_ENGINE_POLLED);
    static event_log log;
    reset(&log);
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 60, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, timer, record_event, &log));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer)); /* STATE(RUNNING) queued */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, timer, TOCSIN_EVENTS_FINISH));
    CHECK_EQ(0, tocsin_engine_dispatch(engine));
    CHECK_EQ(0, atomic_load(&log.count));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_events(engine, timer, TOCSIN_EVENTS_ALL)); /* not queued then: lost */
    CHECK_EQ(0, tocsin_engine_dispatch(engine));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    CHECK_EQ(1, tocsin_engine_dispatch(engine));
    CHECK(!strcmp(event_summary(&log), "S1"));
    tocsin_engine_free(engine);
}

static void countdown_start_is_create_callback_start(void) {
    tocsin_engine *engine = engine_in(TOCSIN_ENGINE_MANUAL_CLOCK);
    static event_log all, finish;
    reset(&all), reset(&finish);
    tocsin_timer a = 0, b = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_start(engine, 2, TOCSIN_EVENTS_ALL, record_event, &all, &a));
    CHECK_EQ(TOCSIN_RUNNING, tocsin_timer_state(engine, a));
    CHECK_EQ(TOCSIN_EVENTS_ALL, tocsin_timer_events(engine, a));
    CHECK_EQ(0, atomic_load(&all.count)); /* never inside the causing call */
    CHECK_EQ(1, tocsin_engine_advance(engine, 1)); /* STATE(RUNNING) */
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_start(engine, 2, TOCSIN_EVENTS_FINISH, record_event, &finish, &b));
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_start(engine, 1, TOCSIN_EVENTS_FINISH, record_event, &finish, NULL));
    double remaining = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_timer_remaining(engine, b, &remaining));
    CHECK(remaining == 2);
    tocsin_engine_advance(engine, 5);
    CHECK(!strcmp(event_summary(&all), "S1 F S3"));
    CHECK(all.events[1].timer == a && all.delivered_at[1] == 2);
    CHECK(!strcmp(event_summary(&finish), "F F"));
    CHECK(finish.events[0].timer != b && finish.delivered_at[0] == 2); /* the 1 s one, started at 1 */
    CHECK(finish.events[1].timer == b && finish.delivered_at[1] == 3);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, a)); /* an ordinary timer: restart, free */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, a));
    CHECK_EQ(2, tocsin_engine_timers(engine, NULL, 0));
    tocsin_engine_free(engine);
}

static void countdown_start_fails_cleanly(void) {
    tocsin_engine *engine = engine_in(TOCSIN_ENGINE_MANUAL_CLOCK);
    tocsin_timer timer = 7;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_start(engine, 0, TOCSIN_EVENTS_ALL, record_event, NULL, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_start(engine, -1, TOCSIN_EVENTS_ALL, NULL, NULL, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_start(engine, NAN, TOCSIN_EVENTS_ALL, NULL, NULL, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_start(engine, INFINITY, TOCSIN_EVENTS_ALL, NULL, NULL, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_start(engine, TOCSIN_MAX_SECONDS * 2, 0, NULL, NULL, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_start(engine, 1, 1, NULL, NULL, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_countdown_start(NULL, 1, 0, NULL, NULL, &timer));
    CHECK_EQ(7, timer);                                  /* untouched */
    CHECK_EQ(0, tocsin_engine_timers(engine, NULL, 0)); /* nothing left behind */
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_start(engine, TOCSIN_MAX_SECONDS, 0, NULL, NULL, &timer));
    CHECK_EQ(0, tocsin_engine_advance(engine, 10)); /* no callback, nothing queued */
    tocsin_engine_close(engine);
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_countdown_start(engine, 1, 0, NULL, NULL, &timer));
    tocsin_engine_free(engine);
}

/* DEFAULT mode, the libuv/GLib shape: fire-and-forget one-shots that free
 * themselves on FINISH. */
static void free_on_finish(tocsin_engine *engine, const tocsin_event *event, void *fired) {
    CHECK_EQ(TOCSIN_EVENT_FINISH, event->kind);
    CHECK(event->lateness >= 0);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, event->timer));
    atomic_fetch_add((atomic_int *)fired, 1);
}

static void one_shots_free_themselves_on_the_engine_thread(void) {
    enum { N = 2000 };
    tocsin_engine *engine = engine_in(TOCSIN_ENGINE_DEFAULT);
    static atomic_int fired;
    atomic_store(&fired, 0);
    double start = boot_seconds();
    for (int i = 0; i < N; i++)
        CHECK_EQ(TOCSIN_OK, tocsin_countdown_start(engine, 0.001 + (i % 50) * 0.002, TOCSIN_EVENTS_FINISH,
                                                   free_on_finish, &fired, NULL));
    CHECK(wait_for(&fired, N, 10000));
    CHECK(boot_seconds() - start >= 0.001);
    sleep_ms(20);
    CHECK_EQ(N, atomic_load(&fired)); /* exactly one callback each */
    CHECK_EQ(0, tocsin_engine_timers(engine, NULL, 0));
    tocsin_engine_free(engine);
}

const test_case events_tests[] = {
    {"events_default_to_all_and_reject_other_bits", events_default_to_all_and_reject_other_bits},
    {"the_callback_gets_only_its_kinds_observers_get_all", the_callback_gets_only_its_kinds_observers_get_all},
    {"unwanted_state_events_are_never_queued", unwanted_state_events_are_never_queued},
    {"unwanted_state_events_leave_the_fd_quiet", unwanted_state_events_leave_the_fd_quiet},
    {"queued_events_are_filtered_when_delivered", queued_events_are_filtered_when_delivered},
    {"countdown_start_is_create_callback_start", countdown_start_is_create_callback_start},
    {"countdown_start_fails_cleanly", countdown_start_fails_cleanly},
    {"one_shots_free_themselves_on_the_engine_thread", one_shots_free_themselves_on_the_engine_thread},
    {NULL, NULL},
};

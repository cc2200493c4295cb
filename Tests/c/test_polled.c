/* POLLED mode: the host's own poll loop, callbacks on the host's thread. */
#include <poll.h>
#include <pthread.h>
#include <string.h>

#include "harness.h"

static int readable(int fd, int timeout_ms) {
    struct pollfd entry = {fd, POLLIN, 0};
    return poll(&entry, 1, timeout_ms) == 1;
}

typedef struct {
    event_log log;
    pthread_t host;
    atomic_int off_host_thread;
    int nested_dispatch;
} polled_state;

static void polled_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    polled_state *p = data;
    record_event(engine, event, &p->log);
    if (!pthread_equal(pthread_self(), p->host)) atomic_fetch_add(&p->off_host_thread, 1);
    p->nested_dispatch = tocsin_engine_dispatch(engine);
}

static void fd_is_readable_exactly_while_events_wait(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_advance(engine, 1));
    static polled_state p;
    memset(&p, 0, sizeof p);
    p.host = pthread_self();
    int fd = tocsin_engine_fd(engine);
    CHECK(fd >= 0);
    CHECK(!readable(fd, 0));
    tocsin_timer timer = 0;
    tocsin_countdown_new(engine, 0.2, &timer);
    tocsin_timer_set_tick(engine, timer, 0.1);
    tocsin_timer_set_callback(engine, timer, polled_callback, &p);
    double started = boot_seconds();
    tocsin_timer_start(engine, timer);
    CHECK(readable(fd, 0)); /* STATE(RUNNING) waits */
    CHECK_EQ(1, tocsin_engine_dispatch(engine));
    CHECK_EQ(TOCSIN_ESTATE, p.nested_dispatch); /* no dispatch inside a callback */
    CHECK(!readable(fd, 0));
    CHECK(readable(fd, 5000));
    CHECK(boot_seconds() - started >= 0.1 - 1e-6); /* the fd is not readable early */
    CHECK_EQ(1, tocsin_engine_dispatch(engine));   /* TICK 1 */
    CHECK(!readable(fd, 0));
    CHECK(readable(fd, 5000));
    CHECK_EQ(2, tocsin_engine_dispatch(engine));   /* FINISH, STATE(FINISHED) */
    CHECK(!readable(fd, 0));
    CHECK_EQ(0, tocsin_engine_dispatch(engine));
    CHECK(!strcmp(event_summary(&p.log), "S1 T1 F S3"));
    CHECK_EQ(0, atomic_load(&p.off_host_thread));
    tocsin_engine_free(engine);
}

/* Cancelling the earliest timer makes no system call, so the fd may turn
   readable once at its deadline: never before, and a dispatch then delivers
   nothing and clears it while the next timer is far away. The last armed
   timer going leaves nothing to wake for. */
static void cancelled_earliest_timer_costs_at_most_one_empty_dispatch(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    int fd = tocsin_engine_fd(engine);
    tocsin_timer soon = 0, later = 0, last = 0;
    tocsin_countdown_new(engine, 0.05, &soon);
    tocsin_countdown_new(engine, 60, &later);
    double started = boot_seconds();
    tocsin_timer_start(engine, soon);
    tocsin_timer_start(engine, later);
    tocsin_timer_cancel(engine, soon);
    if (readable(fd, 5000)) {
        CHECK(boot_seconds() - started >= 0.05 - 1e-6); /* never before the deadline */
        CHECK_EQ(0, tocsin_engine_dispatch(engine));
    }
    CHECK(!readable(fd, 200)); /* clear: the next live deadline is 60 s away */
    tocsin_timer_free(engine, later);
    tocsin_countdown_new(engine, 0.05, &last);
    tocsin_timer_start(engine, last);
    tocsin_timer_cancel(engine, last);
    CHECK(!readable(fd, 200)); /* nothing armed: nothing to wake for */
    CHECK_EQ(0, tocsin_engine_dispatch(engine));
    tocsin_engine_free(engine);
}

static int closed_engine_callbacks;
static void count_closed_engine_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine, (void)event, (void)data;
    closed_engine_callbacks++;
}

/* Closed with an event waiting: dispatch and fd say ECLOSED, and the waiting
   event is never delivered. Then freed with a running timer. */
static void closed_engine_refuses_dispatch(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    closed_engine_callbacks = 0;
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 0.01, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, timer, count_closed_engine_callback, NULL));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    CHECK(readable(tocsin_engine_fd(engine), 2000)); /* the STATE event waits */
    tocsin_engine_close(engine);
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_engine_dispatch(engine));
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_engine_fd(engine));
    CHECK_EQ(0, closed_engine_callbacks);
    tocsin_engine_free(engine);

    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine));
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 0.01, &timer));
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    tocsin_engine_free(engine); /* with a running timer and a waiting event */
}

const test_case polled_tests[] = {
    {"fd_is_readable_exactly_while_events_wait", fd_is_readable_exactly_while_events_wait},
    {"cancelled_earliest_timer_costs_at_most_one_empty_dispatch", cancelled_earliest_timer_costs_at_most_one_empty_dispatch},
    {"closed_engine_refuses_dispatch", closed_engine_refuses_dispatch},
    {NULL, NULL},
};

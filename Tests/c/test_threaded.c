/* DEFAULT mode: callbacks on the engine's own thread, real clock, short
 * durations. Timeouts only catch hangs; nothing here depends on speed. */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static tocsin_engine *threaded_engine(void) {
    tocsin_engine *engine = NULL;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine));
    return engine;
}

typedef struct {
    event_log log;
    double started;
    atomic_int finished;
    pthread_t caller;
    atomic_int on_caller_thread;
} ticking;

static void ticking_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    ticking *t = data;
    record_event(engine, event, &t->log);
    if (pthread_equal(pthread_self(), t->caller)) atomic_fetch_add(&t->on_caller_thread, 1);
    if (event->kind == TOCSIN_EVENT_STATE && event->state == TOCSIN_FINISHED) atomic_store(&t->finished, 1);
}

static void countdown_ticks_and_finishes_never_early(void) {
    tocsin_engine *engine = threaded_engine();
    static ticking t;
    memset(&t, 0, sizeof t);
    t.caller = pthread_self();
    tocsin_timer timer = 0;
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_dispatch(engine));
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_fd(engine));
    CHECK_EQ(TOCSIN_ESTATE, tocsin_engine_advance(engine, 1));
    tocsin_countdown_new(engine, 0.3, &timer);
    tocsin_timer_set_tick(engine, timer, 0.05);
    tocsin_timer_set_label(engine, timer, "Tea");
    tocsin_timer_set_callback(engine, timer, ticking_callback, &t);
    tocsin_engine_now(engine, &t.started);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timer));
    CHECK(wait_for(&t.finished, 1, 10000));
    CHECK(!strcmp(event_summary(&t.log), "S1 T1 T2 T3 T4 T5 F S3"));
    CHECK_EQ(0, atomic_load(&t.on_caller_thread));
    for (int i = 1; i <= 6; i++) {
        const tocsin_event *e = &t.log.events[i];
        double due = i <= 5 ? 0.05 * i : 0.3;
        CHECK(t.log.delivered_at[i] - t.started >= due - 1e-9); /* never early */
        CHECK(e->lateness >= 0);
        CHECK_NEAR(due, e->elapsed, 1e-9);                     /* nominal, not measured */
    }
    tocsin_engine_free(engine);
}

/* A callback that blocks, to show that free and cancel wait for it. */
typedef struct {
    atomic_int entered, returned, calls_after_free;
    atomic_int freed;
} blocking;

static void blocking_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine;
    blocking *b = data;
    if (atomic_load(&b->freed)) atomic_fetch_add(&b->calls_after_free, 1);
    if (event->kind != TOCSIN_EVENT_TICK) return;
    atomic_fetch_add(&b->entered, 1);
    sleep_ms(150);
    atomic_fetch_add(&b->returned, 1);
}

/* A stopwatch ticking every 10 ms into blocking_callback, once the first
 * tick's callback is running. */
static tocsin_timer start_blocking_stopwatch(tocsin_engine *engine, blocking *b) {
    memset(b, 0, sizeof *b);
    tocsin_timer watch = 0;
    tocsin_stopwatch_new(engine, &watch);
    tocsin_timer_set_tick(engine, watch, 0.01);
    tocsin_timer_set_callback(engine, watch, blocking_callback, b);
    tocsin_timer_start(engine, watch);
    CHECK(wait_for(&b->entered, 1, 10000));
    return watch;
}

static void free_waits_for_the_running_callback(void) {
    tocsin_engine *engine = threaded_engine();
    static blocking b;
    tocsin_timer watch = start_blocking_stopwatch(engine, &b);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, watch));
    atomic_store(&b.freed, 1);
    /* free returned: the callback that was running has returned too. */
    CHECK_EQ(atomic_load(&b.entered), atomic_load(&b.returned));
    sleep_ms(100);
    CHECK_EQ(0, atomic_load(&b.calls_after_free));
    tocsin_engine_free(engine);
}

static void cancel_waits_and_no_tick_follows(void) {
    tocsin_engine *engine = threaded_engine();
    static blocking b;
    tocsin_timer watch = start_blocking_stopwatch(engine, &b);
    CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, watch));
    int ticks_at_cancel = atomic_load(&b.entered);
    CHECK_EQ(ticks_at_cancel, atomic_load(&b.returned));
    sleep_ms(100);
    CHECK_EQ(ticks_at_cancel, atomic_load(&b.entered)); /* no TICK after cancel returned */
    CHECK_EQ(TOCSIN_CANCELED, tocsin_timer_state(engine, watch));
    tocsin_engine_free(engine);
}

/* Queued STATE events are delivered several per lock (a batch) while the
 * host carries on. A batch must still follow the host: a timer freed while
 * another timer's handler runs gets no event afterwards (and free does not
 * wait for the other handler), and a new callback receives the queued events
 * from then on. */
typedef struct {
    atomic_int entered, release, calls;
} gate;

static void gate_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine;
    gate *g = data;
    atomic_fetch_add(&g->calls, 1);
    if (event->kind != TOCSIN_EVENT_STATE || event->state != TOCSIN_RUNNING) return;
    atomic_store(&g->entered, 1);
    for (int waited = 0; !atomic_load(&g->release) && waited < 5000; waited++) sleep_ms(1);
}

static void count_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine, (void)event;
    atomic_fetch_add((atomic_int *)data, 1);
}

static void queued_events_follow_free_and_new_callbacks(void) {
    tocsin_engine *engine = threaded_engine();
    static gate first, second;
    static atomic_int freed_calls, old_calls, new_calls;
    memset(&first, 0, sizeof first), memset(&second, 0, sizeof second);
    atomic_store(&freed_calls, 0), atomic_store(&old_calls, 0), atomic_store(&new_calls, 0);
    tocsin_timer blocker = 0, holder = 0, freed = 0, switched = 0;
    tocsin_countdown_new(engine, 60, &blocker);
    tocsin_timer_set_callback(engine, blocker, gate_callback, &first);
    tocsin_timer_start(engine, blocker);
    CHECK(wait_for(&first.entered, 1, 10000)); /* the engine thread is held in a handler */

    tocsin_countdown_new(engine, 60, &holder);
    tocsin_countdown_new(engine, 60, &freed);
    tocsin_countdown_new(engine, 60, &switched);
    tocsin_timer_set_callback(engine, holder, gate_callback, &second);
    tocsin_timer_set_callback(engine, freed, count_callback, &freed_calls);
    tocsin_timer_set_callback(engine, switched, count_callback, &old_calls);
    tocsin_timer_start(engine, holder);
    tocsin_timer_start(engine, freed);
    tocsin_timer_start(engine, switched);
    atomic_store(&first.release, 1); /* the three STATE(RUNNING) events go out together */
    CHECK(wait_for(&second.entered, 1, 10000));

    double before = boot_seconds();
    CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, freed));
    CHECK(boot_seconds() - before < 1.0); /* did not wait for the other timer's handler */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_set_callback(engine, switched, count_callback, &new_calls));
    atomic_store(&second.release, 1);
    /* The batch goes on in order (holder, freed, switched): once the new
     * callback has its event, the freed timer's turn has passed. */
    CHECK(wait_for(&new_calls, 1, 10000));
    CHECK_EQ(0, atomic_load(&freed_calls));
    CHECK_EQ(0, atomic_load(&old_calls));
    CHECK_EQ(1, atomic_load(&new_calls));
    tocsin_engine_free(engine);
}

/* Callbacks on the engine thread that cancel, free and create timers. */
typedef struct {
    tocsin_timer others[8];
    atomic_int created_finished;
    atomic_int done;
} juggler;

static void created_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine;
    juggler *j = data;
    if (event->kind == TOCSIN_EVENT_FINISH) atomic_fetch_add(&j->created_finished, 1);
}

static void juggling_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    juggler *j = data;
    if (event->kind != TOCSIN_EVENT_FINISH) return;
    for (int i = 0; i < 4; i++) CHECK_EQ(TOCSIN_OK, tocsin_timer_cancel(engine, j->others[i]));
    for (int i = 4; i < 8; i++) CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, j->others[i]));
    for (int i = 0; i < 5; i++) {
        tocsin_timer fresh = 0;
        CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 0.02, &fresh));
        tocsin_timer_set_callback(engine, fresh, created_callback, j);
        CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, fresh));
    }
    CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, event->timer));
    atomic_store(&j->done, 1);
}

static void callbacks_cancel_free_and_create(void) {
    tocsin_engine *engine = threaded_engine();
    static juggler j;
    memset(&j, 0, sizeof j);
    for (int i = 0; i < 8; i++) {
        tocsin_countdown_new(engine, 30, &j.others[i]);
        tocsin_timer_start(engine, j.others[i]);
    }
    tocsin_timer trigger = 0;
    tocsin_countdown_new(engine, 0.02, &trigger);
    tocsin_timer_set_callback(engine, trigger, juggling_callback, &j);
    tocsin_timer_start(engine, trigger);
    CHECK(wait_for(&j.done, 1, 10000));
    CHECK(wait_for(&j.created_finished, 5, 10000));
    for (int i = 0; i < 4; i++) CHECK_EQ(TOCSIN_CANCELED, tocsin_timer_state(engine, j.others[i]));
    for (int i = 4; i < 8; i++) CHECK_EQ(TOCSIN_ENOENT, tocsin_timer_state(engine, j.others[i]));
    tocsin_engine_free(engine);
}

static atomic_int freeing_calls, engine_freed_flag;

static void free_engine_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)data;
    atomic_fetch_add(&freeing_calls, 1);
    if (event->kind == TOCSIN_EVENT_FINISH) {
        tocsin_engine_free(engine); /* returns at once: we are on the engine thread */
        tocsin_timer timer = 0;
        CHECK_EQ(TOCSIN_ECLOSED, tocsin_countdown_new(engine, 1, &timer));
        atomic_store(&engine_freed_flag, 1);
    }
}

static void engine_freed_from_its_own_thread(void) {
    tocsin_engine *engine = threaded_engine();
    atomic_store(&freeing_calls, 0);
    atomic_store(&engine_freed_flag, 0);
    for (int i = 0; i < 4; i++) {
        tocsin_timer timer = 0;
        tocsin_countdown_new(engine, 0.05, &timer);
        tocsin_timer_set_callback(engine, timer, free_engine_callback, NULL);
        tocsin_timer_start(engine, timer);
    }
    CHECK(wait_for(&engine_freed_flag, 1, 10000));
    int calls = atomic_load(&freeing_calls);
    sleep_ms(100);
    CHECK_EQ(calls, atomic_load(&freeing_calls)); /* nothing after the free */
    CHECK_EQ(5, calls);                             /* 4 x STATE(RUNNING) + the one FINISH */
}

static atomic_int busy_calls;

static void busy_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine;
    (void)event;
    (void)data;
    atomic_fetch_add(&busy_calls, 1);
    sleep_ms(1);
}

static void engine_freed_while_callbacks_run(void) {
    for (int round = 0; round < 5; round++) {
        tocsin_engine *engine = threaded_engine();
        atomic_store(&busy_calls, 0);
        for (int i = 0; i < 20; i++) {
            tocsin_timer watch = 0;
            tocsin_stopwatch_new(engine, &watch);
            tocsin_timer_set_tick(engine, watch, 0.001);
            tocsin_timer_set_callback(engine, watch, busy_callback, NULL);
            tocsin_timer_start(engine, watch);
        }
        CHECK(wait_for(&busy_calls, 5, 10000));
        tocsin_engine_free(engine);
        int calls = atomic_load(&busy_calls);
        sleep_ms(20);
        CHECK_EQ(calls, atomic_load(&busy_calls));
    }
}

static atomic_int stress_fired;

static void stress_callback(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine;
    (void)data;
    if (event->kind == TOCSIN_EVENT_FINISH) atomic_fetch_add(&stress_fired, 1);
}

typedef struct {
    tocsin_engine *engine;
    int finishes;
    int failures;
} worker_args;

/* 4 threads create, start, cancel and free timers on one engine at once. */
static void *stress_worker(void *data) {
    worker_args *args = data;
    for (int i = 0; i < 2500; i++) {
        tocsin_timer timer = 0;
        if (tocsin_countdown_new(args->engine, (i % 3 == 0) ? 0.001 : 60, &timer) != TOCSIN_OK ||
            tocsin_timer_set_callback(args->engine, timer, stress_callback, NULL) != TOCSIN_OK ||
            tocsin_timer_start(args->engine, timer) != TOCSIN_OK) {
            args->failures++;
            continue;
        }
        if (i % 3 == 0) {
            args->finishes++;
        } else if (tocsin_timer_cancel(args->engine, timer) != TOCSIN_OK ||
                   tocsin_timer_free(args->engine, timer) != TOCSIN_OK) {
            args->failures++;
        }
    }
    return NULL;
}

static void four_threads_at_once(void) {
    tocsin_engine *engine = threaded_engine();
    atomic_store(&stress_fired, 0);
    pthread_t threads[4];
    worker_args args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (worker_args){engine, 0, 0};
        pthread_create(&threads[i], NULL, stress_worker, &args[i]);
    }
    int expected = 0, failures = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        expected += args[i].finishes;
        failures += args[i].failures;
    }
    CHECK_EQ(0, failures);
    CHECK_EQ(4 * 834, expected); /* every third of 2,500 per thread: not a wait for nothing */
    CHECK(wait_for(&stress_fired, expected, 20000));
    CHECK_EQ(expected, atomic_load(&stress_fired));
    tocsin_engine_free(engine);
}

/* Context switches of every thread named "tocsin" in this process: the
 * kernel's own count, so a wakeup cannot hide. */
static long engine_thread_switches(int *threads) {
    long total = 0;
    *threads = 0;
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    for (struct dirent *task; (task = readdir(tasks));) {
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", task->d_name);
        FILE *comm = fopen(path, "r");
        if (!comm) continue;
        int is_engine = fgets(line, sizeof line, comm) && !strcmp(line, "tocsin\n");
        fclose(comm);
        if (!is_engine) continue;
        (*threads)++;
        snprintf(path, sizeof path, "/proc/self/task/%s/status", task->d_name);
        FILE *status = fopen(path, "r");
        while (status && fgets(line, sizeof line, status))
            if (strstr(line, "ctxt_switches:")) total += atol(strchr(line, ':') + 1);
        if (status) fclose(status);
    }
    closedir(tasks);
    return total;
}

static void idle_engine_never_wakes(void) {
    tocsin_engine *engine = threaded_engine();
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_timer far = 0;
    tocsin_countdown_new(engine, 30, &far);
    tocsin_timer_set_callback(engine, far, record_event, &log);
    tocsin_timer_start(engine, far);
    CHECK(wait_for(&log.count, 1, 10000)); /* STATE(RUNNING) delivered */
    /* Settled: the engine thread is back asleep (two readings alike). */
    int threads = 0;
    long before = engine_thread_switches(&threads);
    for (int tries = 0; tries < 200; tries++) {
        sleep_ms(50);
        long now = engine_thread_switches(&threads);
        if (now == before) break;
        before = now;
    }
    CHECK_EQ(1, threads);
    sleep_ms(500);
    long after = engine_thread_switches(&threads);
    CHECK_EQ(before, after); /* no polling loop: zero wakeups while nothing is due */
    tocsin_engine_free(engine);
}

/* STATE events are gathered for up to 1 ms, but never held behind a
 * deadline: with countdowns of 0.2 ms, each FINISH still comes after every
 * STATE(RUNNING) that happened before it was due. */
#define GATHERED 100
static void gathered_state_events_keep_due_time_order(void) {
    tocsin_engine *engine = threaded_engine();
    static event_log log;
    atomic_store(&log.count, 0);
    tocsin_timer timers[GATHERED];
    double started[GATHERED + 1];
    for (int i = 0; i < GATHERED; i++) {
        CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 0.0002, &timers[i]));
        tocsin_timer_set_callback(engine, timers[i], record_event, &log);
        tocsin_engine_now(engine, &started[i]);
        CHECK_EQ(TOCSIN_OK, tocsin_timer_start(engine, timers[i]));
    }
    tocsin_engine_now(engine, &started[GATHERED]);
    CHECK(wait_for(&log.count, 3 * GATHERED, 10000)); /* S1, F, S3 each */
    sleep_ms(20);
    CHECK_EQ(3 * GATHERED, atomic_load(&log.count));
    int running_at[GATHERED], finish_at[GATHERED];
    for (int i = 0; i < GATHERED; i++) running_at[i] = finish_at[i] = -1;
    for (int position = 0; position < 3 * GATHERED; position++) {
        const tocsin_event *e = &log.events[position];
        for (int i = 0; i < GATHERED; i++) {
            if (e->timer != timers[i]) continue;
            if (e->kind == TOCSIN_EVENT_FINISH) finish_at[i] = position;
            if (e->kind == TOCSIN_EVENT_STATE && e->state == TOCSIN_RUNNING) running_at[i] = position;
        }
        CHECK(e->lateness >= 0);
    }
    for (int j = 0; j < GATHERED; j++) {
        CHECK(running_at[j] >= 0 && finish_at[j] > running_at[j]);
        for (int k = 0; k < GATHERED; k++) {
            /* k's start ended before j's deadline could come */
            if (started[k + 1] < started[j] + 0.0002) CHECK(running_at[k] < finish_at[j]);
        }
    }
    tocsin_engine_free(engine);
}

const test_case threaded_tests[] = {
    {"gathered_state_events_keep_due_time_order", gathered_state_events_keep_due_time_order},
    {"idle_engine_never_wakes", idle_engine_never_wakes},
    {"countdown_ticks_and_finishes_never_early", countdown_ticks_and_finishes_never_early},
    {"free_waits_for_the_running_callback", free_waits_for_the_running_callback},
    {"cancel_waits_and_no_tick_follows", cancel_waits_and_no_tick_follows},
    {"queued_events_follow_free_and_new_callbacks", queued_events_follow_free_and_new_callbacks},
    {"callbacks_cancel_free_and_create", callbacks_cancel_free_and_create},
    {"engine_freed_from_its_own_thread", engine_freed_from_its_own_thread},
    {"engine_freed_while_callbacks_run", engine_freed_while_callbacks_run},
    {"four_threads_at_once", four_threads_at_once},
    {NULL, NULL},
};

/* countdown.c: a countdown with a tick every second, in DEFAULT mode
 * (callbacks on the engine's own thread).
 *
 *   cc countdown.c $(pkg-config --cflags --libs tocsin) -o countdown
 *   ./countdown [SECONDS [LABEL]]          (default: 3 "Tea")
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <tocsin.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_changed = PTHREAD_COND_INITIALIZER;
static int done;

static void on_event(tocsin_engine *engine, const tocsin_event *event, void *user_data) {
    const char *label = user_data;
    (void)engine;
    switch (event->kind) {
    case TOCSIN_EVENT_TICK:
        printf("%s: %.1f s left (tick %llu, %.2f ms late)\n", label, event->remaining,
               (unsigned long long)event->tick, event->lateness * 1e3);
        break;
    case TOCSIN_EVENT_FINISH:
        printf("FINISH: %s after %.3f s (%.2f ms late)\n", label, event->elapsed, event->lateness * 1e3);
        break;
    case TOCSIN_EVENT_STATE:
        if (event->state == TOCSIN_RUNNING) printf("%s: %.1f s, running\n", label, event->remaining);
        if (event->state == TOCSIN_FINISHED) {
            pthread_mutex_lock(&lock);
            done = 1;
            pthread_cond_signal(&done_changed);
            pthread_mutex_unlock(&lock);
        }
        break;
    }
    fflush(stdout);
}

static int fail(const char *what, int status) {
    fprintf(stderr, "countdown: %s: %s\n", what, tocsin_strerror(status));
    return 1;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    char *label = argc > 2 ? argv[2] : "Tea";
    tocsin_engine *engine;
    tocsin_timer timer;
    int status;

    if ((status = tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine)) != TOCSIN_OK)
        return fail("engine", status);
    if ((status = tocsin_countdown_new(engine, seconds, &timer)) != TOCSIN_OK)
        return fail("countdown", status);
    tocsin_timer_set_label(engine, timer, label);
    tocsin_timer_set_tick(engine, timer, 1.0);
    tocsin_timer_set_callback(engine, timer, on_event, label);
    tocsin_timer_start(engine, timer);

    pthread_mutex_lock(&lock);
    while (!done) pthread_cond_wait(&done_changed, &lock);
    pthread_mutex_unlock(&lock);

    tocsin_engine_free(engine); /* frees the timer too */
    return 0;
}

/* poll_loop.c: Tocsin inside the host's own event loop (POLLED mode). The
 * host polls tocsin_engine_fd() next to its other fds and calls
 * tocsin_engine_dispatch(); every callback runs on the host's thread.
 *
 *   cc poll_loop.c $(pkg-config --cflags --libs tocsin) -o poll_loop
 *   ./poll_loop
 *
 * A 1.5 s "Eggs" countdown and a stopwatch ticking every 0.5 s, suspended
 * and resumed on the way, until the countdown finishes.
 */
#include <poll.h>
#include <stdio.h>
#include <tocsin.h>

static int finished;

static void on_event(tocsin_engine *engine, const tocsin_event *event, void *user_data) {
    char label[64];
    tocsin_timer_label(engine, event->timer, label, sizeof label);
    const char *kind = event->kind == TOCSIN_EVENT_TICK ? "tick" : event->kind == TOCSIN_EVENT_FINISH ? "finish" : "state";
    printf("%-8s %-6s state=%d elapsed=%.3f", label, kind, event->state, event->elapsed);
    if (event->remaining >= 0) printf(" remaining=%.3f", event->remaining);
    printf("\n");
    if (event->kind == TOCSIN_EVENT_TICK && event->tick == 2) {
        double lap = 0;
        tocsin_timer_lap(engine, event->timer, &lap);
        printf("%-8s lap    %.3f s\n", label, lap);
    }
    if (event->kind == TOCSIN_EVENT_FINISH) *(int *)user_data = 1;
}

int main(void) {
    tocsin_engine *engine;
    tocsin_timer eggs, watch;
    if (tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine) != TOCSIN_OK) return 1;

    tocsin_countdown_new(engine, 1.5, &eggs);
    tocsin_timer_set_label(engine, eggs, "Eggs");
    tocsin_timer_set_callback(engine, eggs, on_event, &finished);
    tocsin_stopwatch_new(engine, &watch);
    tocsin_timer_set_label(engine, watch, "Watch");
    tocsin_timer_set_tick(engine, watch, 0.5);
    tocsin_timer_set_callback(engine, watch, on_event, &finished);
    tocsin_timer_start(engine, eggs);
    tocsin_timer_start(engine, watch);

    struct pollfd fds[1] = {{tocsin_engine_fd(engine), POLLIN, 0}};
    int rounds = 0;
    while (!finished) {
        /* Other fds of the host would sit in the same array. */
        if (poll(fds, 1, -1) < 0) break;
        if (fds[0].revents & POLLIN) tocsin_engine_dispatch(engine);
        if (++rounds == 3) {
            /* Hold the countdown for a moment: its time left is kept exactly. */
            tocsin_timer_suspend(engine, eggs);
            double left = 0;
            tocsin_timer_remaining(engine, eggs, &left);
            printf("Eggs     held with %.3f s left\n", left);
            tocsin_timer_resume(engine, eggs);
        }
    }
    tocsin_engine_dispatch(engine); /* the STATE(FINISHED) that follows FINISH */
    tocsin_engine_free(engine);
    return 0;
}

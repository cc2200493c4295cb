/* alarm.c: a countdown that shows a desktop alert and rings when it ends.
 *
 *   cc alarm.c $(pkg-config --cflags --libs tocsin-notify) -o alarm
 *   ./alarm [SECONDS [LABEL]]                      (default: 5 "Tea")
 *
 * Without a desktop session it still finishes on time and says why no alert
 * could be shown.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <tocsin.h>
#include <tocsin_notify.h>

struct countdown {
    const char *label;
    int done;
};

static void on_event(tocsin_engine *engine, const tocsin_event *event, void *data) {
    (void)engine;
    struct countdown *countdown = data;
    if (event->kind != TOCSIN_EVENT_FINISH) return;
    printf("%s: finished after %.1f s\n", countdown->label, event->elapsed);
    fflush(stdout);
    countdown->done = 1;
}

static void on_report(tocsin_notifier *notifier, const tocsin_notify_report *report, void *user_data) {
    (void)notifier;
    (void)user_data;
    static const char *kinds[] = {"", "shown", "alert failed", "sound", "sound failed", "button", "dismissed"};
    printf("notifier: %s: %s\n", kinds[report->kind >= 1 && report->kind <= 6 ? report->kind : 0], report->detail);
    fflush(stdout);
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 5;
    const char *label = argc > 2 ? argv[2] : "Tea";
    tocsin_engine *engine;
    tocsin_notifier *notifier;
    tocsin_timer timer;
    int status;

    struct countdown countdown = {label, 0};

    if ((status = tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine)) != TOCSIN_OK ||
        (status = tocsin_notify_new(TOCSIN_NOTIFY_QUIET, &notifier)) != TOCSIN_OK ||
        (status = tocsin_countdown_new(engine, seconds, &timer)) != TOCSIN_OK) {
        fprintf(stderr, "alarm: %s\n", tocsin_strerror(status));
        return 1;
    }
    tocsin_timer_set_label(engine, timer, label);
    tocsin_timer_set_callback(engine, timer, on_event, &countdown);
    tocsin_notify_set_callback(notifier, on_report, NULL);

    tocsin_alert alert = TOCSIN_ALERT_INIT;
    alert.body = "Time is up";
    alert.repeat_seconds = 30; /* ring until dismissed, at most 30 s */
    tocsin_notify_attach(notifier, engine, timer, &alert);
    tocsin_timer_start(engine, timer);

    /* The events come in this loop, on this thread: the countdown, then
       the alert and the sound the notifier starts at its finish. */
    struct pollfd fd = {tocsin_engine_fd(engine), POLLIN, 0};
    while (!countdown.done && poll(&fd, 1, -1) > 0) tocsin_engine_dispatch(engine);

    tocsin_notify_flush(notifier, 10); /* let the alert show before exiting */
    tocsin_notify_forget_engine(notifier, engine);
    tocsin_notify_free(notifier);
    tocsin_engine_free(engine);
    return 0;
}

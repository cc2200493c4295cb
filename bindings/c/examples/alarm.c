/* alarm.c: a countdown that shows a desktop alert and rings when it ends.
 *
 *   cc alarm.c $(pkg-config --cflags --libs tocsin-notify) -o alarm
 *   ./alarm [SECONDS [LABEL]]                      (default: 5 "Tea")
 *
 * Without a desktop session it still finishes on time and says why no alert
 * could be shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <tocsin.h>
#include <tocsin_notify.h>

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

    if ((status = tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine)) != TOCSIN_OK ||
        (status = tocsin_notify_new(TOCSIN_NOTIFY_QUIET, &notifier)) != TOCSIN_OK ||
        (status = tocsin_countdown_new(engine, seconds, &timer)) != TOCSIN_OK) {
        fprintf(stderr, "alarm: %s\n", tocsin_strerror(status));
        return 1;
    }
    tocsin_timer_set_label(engine, timer, label);
    tocsin_notify_set_callback(notifier, on_report, NULL);

    tocsin_alert alert = TOCSIN_ALERT_INIT;
    alert.body = "Time is up";
    alert.repeat_seconds = 30; /* ring until dismissed, at most 30 s */
    tocsin_notify_attach(notifier, engine, timer, &alert);
    tocsin_timer_start(engine, timer);

    /* A manual clock keeps the example quick and exact: the whole countdown
       passes in this call. A real program uses TOCSIN_ENGINE_DEFAULT. */
    tocsin_engine_advance(engine, seconds);
    printf("%s: finished after %.1f s\n", label, seconds);

    tocsin_notify_flush(notifier, 10); /* let the alert show before exiting */
    tocsin_notify_forget_engine(notifier, engine);
    tocsin_notify_free(notifier);
    tocsin_engine_free(engine);
    return 0;
}

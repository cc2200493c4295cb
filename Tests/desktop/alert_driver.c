/* alert_driver: a real C host of libtocsin.so + libtocsin-notify.so, driven
 * by the desktop tests (test_desktop.py) inside a headless session.
 *
 *   alert_driver SECONDS LABEL BODY REPEAT HOLD [LIVE WARN [NOACTIONS]]
 *
 * Runs a DEFAULT-mode countdown of SECONDS with an alert attached (sound
 * repeating for REPEAT seconds when > 0; LIVE 1: TOCSIN_ALERT_LIVE; WARN > 0:
 * the warning that long before zero; NOACTIONS 1: TOCSIN_ALERT_NO_ACTIONS),
 * then keeps running for HOLD seconds after the countdown's own length (or
 * until it is cancelled and 1 s has passed) so the test can look at the
 * screen and press buttons. SIGUSR1 makes it call tocsin_notify_stop(), as
 * a program's own Stop would. Prints one line per event on stdout, flushed:
 *   EVENT <kind> <state> <boot-time>      timer events
 *   REPORT <kind> <status> <timer> <new-timer> <detail>
 *   STOPPED <status> <boot-time>          tocsin_notify_stop() returned
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tocsin.h>
#include <tocsin_notify.h>

static volatile sig_atomic_t stop_asked;
static void ask_stop(int signal_number) {
    (void)signal_number;
    stop_asked = 1;
}

static double boot_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void on_event(tocsin_engine *engine, const tocsin_event *event, void *user_data) {
    (void)engine;
    (void)user_data;
    const char *kind = event->kind == TOCSIN_EVENT_FINISH ? "finish" : event->kind == TOCSIN_EVENT_TICK ? "tick" : "state";
    printf("EVENT %s %d %.6f %llu\n", kind, event->state, boot_seconds(), (unsigned long long)event->timer);
    fflush(stdout);
}

static void on_report(tocsin_notifier *notifier, const tocsin_notify_report *report, void *user_data) {
    (void)notifier;
    (void)user_data;
    printf("REPORT %d %d %llu %llu %s\n", report->kind, report->status, (unsigned long long)report->timer,
           (unsigned long long)report->new_timer, report->detail);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 8 && argc != 9) {
        fprintf(stderr, "usage: alert_driver SECONDS LABEL BODY REPEAT HOLD [LIVE WARN [NOACTIONS]]\n");
        return 2;
    }
    tocsin_engine *engine;
    tocsin_notifier *notifier;
    tocsin_timer timer;
    int status;
    if ((status = tocsin_engine_new(TOCSIN_ENGINE_DEFAULT, &engine)) != TOCSIN_OK ||
        (status = tocsin_notify_new(0, &notifier)) != TOCSIN_OK ||
        (status = tocsin_countdown_new(engine, atof(argv[1]), &timer)) != TOCSIN_OK) {
        fprintf(stderr, "alert_driver: %s\n", tocsin_strerror(status));
        return 1;
    }
    tocsin_timer_set_label(engine, timer, argv[2]);
    tocsin_engine_add_observer(engine, on_event, NULL, NULL);
    tocsin_notify_set_callback(notifier, on_report, NULL);
    tocsin_alert alert = TOCSIN_ALERT_INIT;
    alert.body = argv[3];
    alert.repeat_seconds = atof(argv[4]);
    if (argc >= 8) {
        alert.flags |= atoi(argv[6]) ? TOCSIN_ALERT_LIVE : 0;
        alert.warn_seconds = atof(argv[7]);
    }
    if (argc == 9 && atoi(argv[8])) alert.flags |= TOCSIN_ALERT_NO_ACTIONS;
    if ((status = tocsin_notify_attach(notifier, engine, timer, &alert)) != TOCSIN_OK) {
        fprintf(stderr, "alert_driver: attach: %s\n", tocsin_strerror(status));
        return 1;
    }
    struct sigaction on_usr1 = {0};
    on_usr1.sa_handler = ask_stop;
    sigaction(SIGUSR1, &on_usr1, NULL);
    printf("START %.6f %llu\n", boot_seconds(), (unsigned long long)timer);
    fflush(stdout);
    tocsin_timer_start(engine, timer);
    /* Until the countdown's length plus HOLD; a cancelled timer ends it 1 s
       later. Paused or given more time, the timer may still be running. */
    double until = boot_seconds() + atof(argv[1]) + atof(argv[5]), canceled_at = 0;
    while (boot_seconds() < until && (canceled_at == 0 || boot_seconds() < canceled_at + 1)) {
        if (canceled_at == 0 && tocsin_timer_state(engine, timer) == TOCSIN_CANCELED) canceled_at = boot_seconds();
        if (stop_asked) {
            stop_asked = 0;
            status = tocsin_notify_stop(notifier, engine, timer);
            printf("STOPPED %d %.6f\n", status, boot_seconds());
            fflush(stdout);
        }
        struct timespec step = {0, 20000000};
        nanosleep(&step, NULL);
    }
    printf("FLUSH %d\n", tocsin_notify_flush(notifier, 2));
    fflush(stdout);
    tocsin_notify_forget_engine(notifier, engine);
    tocsin_notify_free(notifier);
    tocsin_engine_free(engine);
    printf("DONE\n");
    return 0;
}

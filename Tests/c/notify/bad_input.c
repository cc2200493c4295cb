/* The notifier's C ABI under bad input: every documented error code for
 * NULL pointers, unknown flags, short or malformed alerts, unknown timers and
 * out-of-range numbers, and nothing changed by a refused call. A real C
 * program linked to the real libtocsin.so and libtocsin-notify.so; it runs
 * without a desktop (alerts then fail in reports, never in the calls).
 * Prints "N passed, N failed".
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../harness.h"  /* CHECK_EQ; this program has its own main */
#include "tocsin_notify.h"

int harness_failures;
static int passed, failed;

static void run(const char *name, void (*test)(void)) {
    int before = harness_failures;
    test();
    if (harness_failures == before) {
        passed++;
        printf("ok   %s\n", name);
    } else {
        failed++;
        printf("FAIL %s\n", name);
    }
}

static atomic_int reports;
static void count_report(tocsin_notifier *notifier, const tocsin_notify_report *report, void *data) {
    (void)notifier, (void)report, (void)data;
    atomic_fetch_add(&reports, 1);
}

static void null_and_unknown_arguments(void) {
    tocsin_notifier *notifier = NULL;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_new(0, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_new(1u << 7, &notifier));
    CHECK_EQ(1, notifier == NULL);
    tocsin_notify_free(NULL);  /* a no-op */
    tocsin_engine *engine;
    tocsin_timer timer;
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 1, &timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_set_callback(NULL, count_report, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(NULL, engine, timer, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_detach(NULL, engine, timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_forget_engine(NULL, engine));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_stop(NULL, engine, timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_set_live_limit(NULL, 3));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_show(NULL, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_flush(NULL, 1));
    char text[8];
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_diagnose(NULL, text, sizeof text));

    CHECK_EQ(TOCSIN_OK, tocsin_notify_new(TOCSIN_NOTIFY_QUIET, &notifier));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, NULL, timer, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_detach(notifier, NULL, timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_forget_engine(notifier, NULL));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_stop(notifier, NULL, timer));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_set_live_limit(notifier, -1));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_set_live_limit(notifier, 1001));
    CHECK_EQ(TOCSIN_OK, tocsin_notify_set_live_limit(notifier, 0));
    CHECK_EQ(TOCSIN_OK, tocsin_notify_set_live_limit(notifier, 1000));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_diagnose(notifier, NULL, 8));  /* a size with no buffer */
    tocsin_notify_free(notifier);
    tocsin_engine_free(engine);
}

static void malformed_alerts_are_refused_and_attach_nothing(void) {
    tocsin_notifier *notifier;
    tocsin_engine *engine;
    tocsin_timer timer;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_new(TOCSIN_NOTIFY_QUIET, &notifier));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 1, &timer));
    static const char invalid_utf8[] = {'a', (char)0xC3, (char)0x28, 0};  /* a broken two-byte sequence */
    static const char truncated_utf8[] = {'b', (char)0xE2, (char)0x82, 0};
    const double bad_repeats[] = {NAN, INFINITY, -INFINITY, -1, -0.001, 3600.5, 1e300};
    for (int field = 0; field < 5; field++) {
        for (int which = 0; which < 2; which++) {
            tocsin_alert alert = TOCSIN_ALERT_INIT;
            const char *bad = which ? truncated_utf8 : invalid_utf8;
            const char **fields[] = {&alert.summary, &alert.body, &alert.icon, &alert.sound, &alert.media_role};
            *fields[field] = bad;
            CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
            CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_show(notifier, &alert));
        }
    }
    for (size_t i = 0; i < sizeof bad_repeats / sizeof bad_repeats[0]; i++) {
        tocsin_alert alert = TOCSIN_ALERT_INIT;
        alert.repeat_seconds = bad_repeats[i];
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_show(notifier, &alert));
    }
    const int32_t bad_urgencies[] = {-1, 3, 1000, INT32_MIN};
    for (size_t i = 0; i < sizeof bad_urgencies / sizeof bad_urgencies[0]; i++) {
        tocsin_alert alert = TOCSIN_ALERT_INIT;
        alert.urgency = bad_urgencies[i];
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    }
    tocsin_alert alert = TOCSIN_ALERT_INIT;
    alert.flags = 64;  /* unknown */
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    const double bad_warnings[] = {NAN, INFINITY, -1, -0.001, 86400.5, 1e300};
    for (size_t i = 0; i < sizeof bad_warnings / sizeof bad_warnings[0]; i++) {
        alert = (tocsin_alert)TOCSIN_ALERT_INIT;
        alert.flags = TOCSIN_ALERT_LIVE;
        alert.warn_seconds = bad_warnings[i];
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    }
    const double bad_snoozes[] = {NAN, INFINITY, -INFINITY, -1, 0.5, 0.999, 86400.5, 1e300};
    for (size_t i = 0; i < sizeof bad_snoozes / sizeof bad_snoozes[0]; i++) {
        alert = (tocsin_alert)TOCSIN_ALERT_INIT;
        alert.snooze_seconds = bad_snoozes[i];
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    }
    const double bad_volumes[] = {NAN, INFINITY, -INFINITY, -60.5, 10.5, 1e300};
    for (size_t i = 0; i < sizeof bad_volumes / sizeof bad_volumes[0]; i++) {
        alert = (tocsin_alert)TOCSIN_ALERT_INIT;
        alert.volume_db = bad_volumes[i];
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    }
    const double bad_fades[] = {NAN, INFINITY, -1, -0.001, 300.5, 1e300};
    for (size_t i = 0; i < sizeof bad_fades / sizeof bad_fades[0]; i++) {
        alert = (tocsin_alert)TOCSIN_ALERT_INIT;
        alert.fade_seconds = bad_fades[i];
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    }
    const char *bad_files[] = {"", "/nonexistent/gong.wav", "/tmp", "/etc/shadow-no-such", invalid_utf8};
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        alert = (tocsin_alert)TOCSIN_ALERT_INIT;
        alert.sound_file = bad_files[i];
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    }
    alert = (tocsin_alert)TOCSIN_ALERT_INIT;
    alert.warn_sound = invalid_utf8;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert = (tocsin_alert)TOCSIN_ALERT_INIT;
    alert.size = offsetof(tocsin_alert, warn_seconds) - 1;  /* smaller than any struct this library knows */
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.size = 0;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_show(notifier, &alert));
    /* Nothing was attached by the refused calls. */
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_detach(notifier, engine, timer));
    /* The edges that are allowed. */
    alert = (tocsin_alert)TOCSIN_ALERT_INIT;
    alert.repeat_seconds = 3600;
    alert.urgency = TOCSIN_URGENCY_CRITICAL;
    alert.flags = TOCSIN_ALERT_NO_POPUP | TOCSIN_ALERT_NO_SOUND | TOCSIN_ALERT_NO_ACTIONS;
    alert.summary = "Tea \xE2\x98\x95";  /* valid UTF-8 */
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    /* A 0.4 caller's struct ends before warn_seconds: accepted, and the
       fields past its end are never read (here: garbage that would fail). */
    alert = (tocsin_alert)TOCSIN_ALERT_INIT;
    alert.size = offsetof(tocsin_alert, warn_seconds);
    alert.warn_seconds = NAN;
    alert.warn_sound = invalid_utf8;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.size = offsetof(tocsin_alert, warn_sound);  /* warn_seconds read, warn_sound not */
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.warn_seconds = 86400;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    /* A 0.5 or 0.6 caller's struct ends before snooze_seconds: not read. */
    alert = (tocsin_alert)TOCSIN_ALERT_INIT;
    alert.size = offsetof(tocsin_alert, snooze_seconds);
    alert.snooze_seconds = NAN;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.size = sizeof alert;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.snooze_seconds = 1;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.snooze_seconds = 86400;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.volume_db = -60;
    alert.fade_seconds = 300;
    alert.sound_file = "/etc/hostname";  /* any readable file: whether it plays is known when it rings */
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.volume_db = 10;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    /* A 0.7 or 0.8 caller's struct ends before notice_seconds: not read. */
    alert.notice_seconds = NAN;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.size = offsetof(tocsin_alert, notice_seconds);
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.size = sizeof alert;
    alert.notice_seconds = 86400.5;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.notice_seconds = -1;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.notice_seconds = 86400;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    /* media: TOCSIN_MEDIA_* only; a struct ending before it is not read. */
    alert.media = 3;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.media = -1;
    CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.size = offsetof(tocsin_alert, media);
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.size = sizeof alert;
    alert.media = TOCSIN_MEDIA_STOP;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert.media = TOCSIN_MEDIA_PAUSE;
    alert.fade_seconds = 60;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    alert = (tocsin_alert)TOCSIN_ALERT_INIT;
    alert.flags = TOCSIN_ALERT_LIVE | TOCSIN_ALERT_NO_WARN_SOUND;
    alert.warn_seconds = 0.5;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, &alert));
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, NULL));  /* replaced by the defaults */
    CHECK_EQ(TOCSIN_OK, tocsin_notify_detach(notifier, engine, timer));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_detach(notifier, engine, timer));
    tocsin_notify_free(notifier);
    tocsin_engine_free(engine);
}

static void unknown_timers_and_engines(void) {
    tocsin_notifier *notifier;
    tocsin_engine *engine, *other;
    tocsin_timer timer;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_new(TOCSIN_NOTIFY_QUIET, &notifier));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine));
    CHECK_EQ(TOCSIN_OK, tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &other));
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 1, &timer));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_attach(notifier, engine, 0, NULL));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_attach(notifier, engine, timer + 1, NULL));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_attach(notifier, other, timer, NULL));  /* another engine's handle */
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_detach(notifier, other, timer));       /* an engine never seen */
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_stop(notifier, other, timer));
    CHECK_EQ(TOCSIN_OK, tocsin_notify_forget_engine(notifier, other));           /* nothing to forget: fine */
    CHECK_EQ(TOCSIN_OK, tocsin_notify_attach(notifier, engine, timer, NULL));
    CHECK_EQ(TOCSIN_OK, tocsin_notify_stop(notifier, engine, timer));  /* stays attached: */
    CHECK_EQ(TOCSIN_OK, tocsin_notify_stop(notifier, engine, timer));
    tocsin_timer unattached;
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(engine, 1, &unattached));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_stop(notifier, engine, unattached));  /* a known engine, no alert */
    CHECK_EQ(TOCSIN_OK, tocsin_timer_free(engine, timer));
    CHECK_EQ(TOCSIN_ENOENT, tocsin_notify_attach(notifier, engine, timer, NULL));  /* freed since */
    CHECK_EQ(TOCSIN_OK, tocsin_notify_forget_engine(notifier, engine));
    tocsin_engine_close(engine);
    CHECK_EQ(TOCSIN_OK, tocsin_countdown_new(other, 1, &timer));
    CHECK_EQ(TOCSIN_ECLOSED, tocsin_notify_attach(notifier, engine, timer, NULL));
    tocsin_notify_free(notifier);
    tocsin_engine_free(engine);
    tocsin_engine_free(other);
}

static void flush_and_diagnose_arguments(void) {
    tocsin_notifier *notifier;
    CHECK_EQ(TOCSIN_OK, tocsin_notify_new(TOCSIN_NOTIFY_QUIET, &notifier));
    CHECK_EQ(TOCSIN_OK, tocsin_notify_set_callback(notifier, count_report, NULL));
    const double bad_timeouts[] = {NAN, INFINITY, -INFINITY, -1, 3600.5};
    for (size_t i = 0; i < sizeof bad_timeouts / sizeof bad_timeouts[0]; i++)
        CHECK_EQ(TOCSIN_EINVAL, tocsin_notify_flush(notifier, bad_timeouts[i]));
    CHECK_EQ(0, tocsin_notify_flush(notifier, 0));  /* nothing pending */
    /* Without a desktop a shown alert fails in a report, not in the call. */
    CHECK_EQ(TOCSIN_OK, tocsin_notify_show(notifier, NULL));
    CHECK_EQ(0, tocsin_notify_flush(notifier, 10));
    CHECK_EQ(1, atomic_load(&reports) > 0);
    /* diagnose is snprintf-like: the full length whatever the room, the text
       cut on a UTF-8 boundary and always terminated. */
    int length = tocsin_notify_diagnose(notifier, NULL, 0);
    CHECK_EQ(1, length > 0);
    char small[5];
    memset(small, 'x', sizeof small);
    CHECK_EQ(length, tocsin_notify_diagnose(notifier, small, sizeof small));
    CHECK_EQ(1, strlen(small) <= 4);
    char one[1] = {'x'};
    CHECK_EQ(length, tocsin_notify_diagnose(notifier, one, 1));
    CHECK_EQ(0, one[0]);
    CHECK_EQ(TOCSIN_OK, tocsin_notify_set_callback(notifier, NULL, NULL));
    tocsin_notify_free(notifier);
}

int main(void) {
    run("notify.null_and_unknown_arguments", null_and_unknown_arguments);
    run("notify.malformed_alerts_are_refused_and_attach_nothing", malformed_alerts_are_refused_and_attach_nothing);
    run("notify.unknown_timers_and_engines", unknown_timers_and_engines);
    run("notify.flush_and_diagnose_arguments", flush_and_diagnose_arguments);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

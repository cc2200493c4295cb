/* The libtocsin.so functions the notifier library calls. It does not link
   the engine: it must drive the very engines its host created, so it finds
   the host's libtocsin.so.0 at run time. Each pointer's type is taken from
   the function's declaration in tocsin.h, so the compiler checks every call
   (Swift imports them as typed C function pointers). Internal: not exported
   from libtocsin-notify.so. */
#ifndef TOCSIN_ENGINE_FUNCTIONS_H
#define TOCSIN_ENGINE_FUNCTIONS_H

#include <stddef.h>

#include "tocsin.h"
#include "tocsin_notify.h"

/* Where tocsin_alert's fields added since 0.4 begin: a 0.4 caller's struct
   ends at warn_seconds (offsetof, which Swift cannot spell without key paths). */
static inline size_t tocsin_alert_end_0_4(void) { return offsetof(tocsin_alert, warn_seconds); }
static inline size_t tocsin_alert_warn_sound_offset(void) { return offsetof(tocsin_alert, warn_sound); }
/* Where 0.5's and 0.6's struct ends. */
static inline size_t tocsin_alert_end_0_6(void) { return offsetof(tocsin_alert, snooze_seconds); }
/* Where 0.7's and 0.8's struct ends. */
static inline size_t tocsin_alert_end_0_8(void) { return offsetof(tocsin_alert, notice_seconds); }
/* Before media: the struct as it was until the sleep timer came. */
static inline size_t tocsin_alert_end_notice(void) { return offsetof(tocsin_alert, media); }

struct tocsin_engine_functions {
    __typeof__(tocsin_timer_start) *timer_start;
    __typeof__(tocsin_timer_suspend) *timer_suspend;
    __typeof__(tocsin_timer_resume) *timer_resume;
    __typeof__(tocsin_timer_cancel) *timer_cancel;
    __typeof__(tocsin_timer_state) *timer_state;
    __typeof__(tocsin_timer_elapsed) *timer_elapsed;
    __typeof__(tocsin_timer_remaining) *timer_remaining;
    __typeof__(tocsin_timer_alarm_time) *timer_alarm_time;
    __typeof__(tocsin_timer_adjust) *timer_adjust;
    __typeof__(tocsin_timer_label) *timer_label;
    __typeof__(tocsin_engine_add_observer) *engine_add_observer;
    __typeof__(tocsin_engine_remove_observer) *engine_remove_observer;
    /* NULL with a libtocsin.so.0 of 0.8 or before: the notice's Skip this
       one then does nothing (the notice stays until the ring). */
    __typeof__(tocsin_calendar_skip) *calendar_skip;
};

/* Fills `functions` from the libtocsin.so.0 already loaded in this process
   (or loads it): 0, or -1 if the library or one of the functions is missing. */
int tocsin_find_engine_functions(struct tocsin_engine_functions *functions);

#endif

/* The notifier's header as a module (the implementation is Swift, in
   Sources/TocsinNotifyC), and the one thing done in C: finding the host's
   engine functions with their declared types. */
#include <dlfcn.h>

#include "tocsin_notify.h"
#include "tocsin_engine_functions.h"

int tocsin_find_engine_functions(struct tocsin_engine_functions *functions) {
    void *library = dlopen("libtocsin.so.0", RTLD_NOW | RTLD_NOLOAD);
    if (!library) library = dlopen("libtocsin.so.0", RTLD_NOW);
    if (!library) return -1;
    /* The name and the type come from one place: the declaration. */
#define FIND(field, function) \
    if (!(functions->field = (__typeof__(&function))dlsym(library, #function))) return -1
    FIND(timer_start, tocsin_timer_start);
    FIND(timer_suspend, tocsin_timer_suspend);
    FIND(timer_resume, tocsin_timer_resume);
    FIND(timer_cancel, tocsin_timer_cancel);
    FIND(timer_state, tocsin_timer_state);
    FIND(timer_elapsed, tocsin_timer_elapsed);
    FIND(timer_remaining, tocsin_timer_remaining);
    FIND(timer_alarm_time, tocsin_timer_alarm_time);
    FIND(timer_adjust, tocsin_timer_adjust);
    FIND(timer_label, tocsin_timer_label);
    FIND(engine_add_observer, tocsin_engine_add_observer);
    FIND(engine_remove_observer, tocsin_engine_remove_observer);
#undef FIND
    functions->calendar_skip = (__typeof__(&tocsin_calendar_skip))dlsym(library, "tocsin_calendar_skip");
    return 0;
}

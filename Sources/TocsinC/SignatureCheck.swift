// Compile-time proof that every function defined here has exactly the
// signature include/tocsin.h declares: each line fails to compile if the
// header's prototype and the @_cdecl definition differ in any type.
import CTocsin

private func sameSignature<Function>(_ declared: Function, _ defined: Function) {}

private func checkSignatures() {
    sameSignature(CTocsin.tocsin_engine_new, TocsinC.tocsin_engine_new)
    sameSignature(CTocsin.tocsin_engine_free, TocsinC.tocsin_engine_free)
    sameSignature(CTocsin.tocsin_engine_close, TocsinC.tocsin_engine_close)
    sameSignature(CTocsin.tocsin_engine_fd, TocsinC.tocsin_engine_fd)
    sameSignature(CTocsin.tocsin_engine_add_observer, TocsinC.tocsin_engine_add_observer)
    sameSignature(CTocsin.tocsin_engine_remove_observer, TocsinC.tocsin_engine_remove_observer)
    sameSignature(CTocsin.tocsin_engine_dispatch, TocsinC.tocsin_engine_dispatch)
    sameSignature(CTocsin.tocsin_engine_advance, TocsinC.tocsin_engine_advance)
    sameSignature(CTocsin.tocsin_engine_now, TocsinC.tocsin_engine_now)
    sameSignature(CTocsin.tocsin_countdown_new, TocsinC.tocsin_countdown_new)
    sameSignature(CTocsin.tocsin_stopwatch_new, TocsinC.tocsin_stopwatch_new)
    sameSignature(CTocsin.tocsin_timer_free, TocsinC.tocsin_timer_free)
    sameSignature(CTocsin.tocsin_timer_set_callback, TocsinC.tocsin_timer_set_callback)
    sameSignature(CTocsin.tocsin_timer_set_events, TocsinC.tocsin_timer_set_events)
    sameSignature(CTocsin.tocsin_timer_events, TocsinC.tocsin_timer_events)
    sameSignature(CTocsin.tocsin_countdown_start, TocsinC.tocsin_countdown_start)
    sameSignature(CTocsin.tocsin_timer_set_tick, TocsinC.tocsin_timer_set_tick)
    sameSignature(CTocsin.tocsin_timer_set_label, TocsinC.tocsin_timer_set_label)
    sameSignature(CTocsin.tocsin_timer_label, TocsinC.tocsin_timer_label)
    sameSignature(CTocsin.tocsin_timer_start, TocsinC.tocsin_timer_start)
    sameSignature(CTocsin.tocsin_timer_suspend, TocsinC.tocsin_timer_suspend)
    sameSignature(CTocsin.tocsin_timer_resume, TocsinC.tocsin_timer_resume)
    sameSignature(CTocsin.tocsin_timer_cancel, TocsinC.tocsin_timer_cancel)
    sameSignature(CTocsin.tocsin_timer_adjust, TocsinC.tocsin_timer_adjust)
    sameSignature(CTocsin.tocsin_timer_set_tick_policy, TocsinC.tocsin_timer_set_tick_policy)
    sameSignature(CTocsin.tocsin_timer_lap, TocsinC.tocsin_timer_lap)
    sameSignature(CTocsin.tocsin_timer_laps, TocsinC.tocsin_timer_laps)
    sameSignature(CTocsin.tocsin_timer_state, TocsinC.tocsin_timer_state)
    sameSignature(CTocsin.tocsin_timer_elapsed, TocsinC.tocsin_timer_elapsed)
    sameSignature(CTocsin.tocsin_timer_remaining, TocsinC.tocsin_timer_remaining)
    sameSignature(CTocsin.tocsin_timer_duration, TocsinC.tocsin_timer_duration)
    sameSignature(CTocsin.tocsin_engine_timers, TocsinC.tocsin_engine_timers)
    sameSignature(CTocsin.tocsin_engine_save, TocsinC.tocsin_engine_save)
    sameSignature(CTocsin.tocsin_engine_load, TocsinC.tocsin_engine_load)
}

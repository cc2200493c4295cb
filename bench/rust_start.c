/* rust_start N: N countdowns made and started on a POLLED engine with the
 * bare C calls (tocsin_countdown_new + tocsin_timer_start), the C side of
 * bench/rust.sh's instruction count of the Rust crate's
 * engine.countdown(s)?.start()? (bindings/rust/tocsin/examples/start_many.rs). */
#include <stdio.h>
#include <stdlib.h>
#include "tocsin.h"

int main(int argc, char **argv) {
    long count = argc > 1 ? atol(argv[1]) : 1000;
    tocsin_engine *engine;
    tocsin_timer timer;
    if (tocsin_engine_new(TOCSIN_ENGINE_POLLED, &engine) < 0) return 1;
    /* No array of handles: an allocation of the harness's own moves where
       the library's tables grow, and with them the memcpy of their growth
       (50 instructions a timer apart between two layouts). */
    for (long i = 0; i < count; i++) {
        if (tocsin_countdown_new(engine, 3600.0 + (double)i * 1e-3, &timer) < 0) return 1;
        if (tocsin_timer_start(engine, timer) < 0) return 1;
    }
    /* Not freed: only making and starting is counted (as the Rust side). */
    return 0;
}

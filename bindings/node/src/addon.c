/* The addon's entry: a context-aware module (NAPI_MODULE_INIT), so each
 * Node environment (the main thread, every worker) gets its own exports and
 * its own engines. The exports are the raw layer the files in lib/ build on. */
#include "addon.h"

static void export_all(napi_env env, napi_value exports, const native *table) {
    for (; table->name != NULL; table++) {
        napi_value fn;
        napi_create_function(env, table->name, NAPI_AUTO_LENGTH, table->call, NULL, &fn);
        napi_set_named_property(env, exports, table->name, fn);
    }
}

NAPI_MODULE_INIT() {
    export_all(env, exports, engine_natives);
    export_all(env, exports, timer_natives);
    export_all(env, exports, query_natives);
    return exports;
}

/* Faults for the addon's unchecked-status tests (real-loop.test.js). The
 * test builds a copy of the addon with its calls renamed to these
 * (-Duv_poll_start=fault_uv_poll_start ...; LD_PRELOAD cannot do it: a
 * statically linked node's own symbols come first), which pass to the real
 * calls unless TOCSIN_FAULT names one to fail:
 *   poll_start  uv_poll_start returns UV_ENOMEM
 *   reference   napi_create_reference of a function fails (the deliver one)
 *   external    napi_create_external fails
 *   pollerr     the poll's first callback comes with UV_EIO, the handle
 *               stopped first, as libuv does on POLLERR
 */
#include <stdlib.h>
#include <string.h>

#include <node_api.h>
#include <uv.h>

static int fault(const char *name) {
    const char *which = getenv("TOCSIN_FAULT");
    return which != NULL && strcmp(which, name) == 0;
}

static uv_poll_cb saved_cb;

static void erring_cb(uv_poll_t *handle, int status, int events) {
    uv_poll_stop(handle);
    saved_cb(handle, UV_EIO, 0);
}

int fault_uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb) {
    if (fault("poll_start"))
        return UV_ENOMEM;
    if (fault("pollerr")) {
        saved_cb = cb;
        return uv_poll_start(handle, events, erring_cb);
    }
    return uv_poll_start(handle, events, cb);
}

napi_status fault_napi_create_reference(napi_env env, napi_value value, uint32_t count,
                                        napi_ref *result) {
    napi_valuetype type;
    if (fault("reference") && napi_typeof(env, value, &type) == napi_ok && type == napi_function)
        return napi_generic_failure;
    return napi_create_reference(env, value, count, result);
}

napi_status fault_napi_create_external(napi_env env, void *data, napi_finalize finalize,
                                       void *hint, napi_value *result) {
    if (fault("external"))
        return napi_generic_failure;
    return napi_create_external(env, data, finalize, hint, result);
}

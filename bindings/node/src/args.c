/* Reading JavaScript arguments into C values, and throwing. Every reader
 * throws a TypeError (code TOCSIN_EINVAL) for a value of the wrong type and
 * returns 0, so a native function returns NULL at once: misuse throws,
 * never crashes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addon.h"

napi_value undefined(napi_env env) {
    napi_value value;
    napi_get_undefined(env, &value);
    return value;
}

static napi_value error_with_code(napi_env env, int type_error, const char *code,
                                  const char *message) {
    napi_value code_value, message_value, error;
    napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &code_value);
    napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &message_value);
    if (type_error)
        napi_create_type_error(env, code_value, message_value, &error);
    else
        napi_create_error(env, code_value, message_value, &error);
    return error;
}

napi_value throw_type(napi_env env, const char *message) {
    napi_throw(env, error_with_code(env, 1, "TOCSIN_EINVAL", message));
    return NULL;
}

/* An Error whose code is the status's name (TOCSIN_ESTATE) and whose errno
 * is the status; the JavaScript layer rewords the message where it knows
 * more (lib/errors.js). */
napi_value throw_status(napi_env env, int status, const char *what) {
    char message[256];
    snprintf(message, sizeof message, "%s: %s", what, tocsin_strerror(status));
    napi_value error = error_with_code(env, 0, tocsin_err_name(status), message);
    napi_value number;
    napi_create_int32(env, status, &number);
    napi_set_named_property(env, error, "errno", number);
    napi_throw(env, error);
    return NULL;
}

int arg_host(napi_env env, napi_value value, host **out) {
    napi_valuetype type;
    void *data = NULL;
    if (napi_typeof(env, value, &type) != napi_ok || type != napi_external ||
        napi_get_value_external(env, value, &data) != napi_ok || data == NULL ||
        ((host *)data)->magic != HOST_MAGIC) {
        throw_type(env, "not an engine of this addon");
        return 0;
    }
    *out = data;
    return 1;
}

int arg_handle(napi_env env, napi_value value, tocsin_timer *out) {
    bool lossless = false;
    uint64_t handle = 0;
    if (napi_get_value_bigint_uint64(env, value, &handle, &lossless) != napi_ok || !lossless) {
        throw_type(env, "a timer handle must be a BigInt from this addon");
        return 0;
    }
    *out = handle;
    return 1;
}

int arg_double(napi_env env, napi_value value, double *out) {
    if (napi_get_value_double(env, value, out) != napi_ok) {
        throw_type(env, "a number was expected");
        return 0;
    }
    return 1;
}

int arg_int(napi_env env, napi_value value, int *out) {
    int32_t number;
    if (napi_get_value_int32(env, value, &number) != napi_ok) {
        throw_type(env, "an integer was expected");
        return 0;
    }
    *out = number;
    return 1;
}

/* A string as UTF-8 (lone surrogates become U+FFFD, as V8 writes them).
   One with a NUL character is refused, as Node's fs refuses such paths:
   C would read only up to it ('/tmp/x\0y' would save to /tmp/x). */
char *arg_string(napi_env env, napi_value value) {
    size_t length = 0;
    if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
        throw_type(env, "a string was expected");
        return NULL;
    }
    char *text = malloc(length + 1);
    if (text == NULL) {
        throw_status(env, TOCSIN_ENOMEM, "copying a string");
        return NULL;
    }
    napi_get_value_string_utf8(env, value, text, length + 1, &length);
    if (strlen(text) != length) {
        free(text);
        throw_type(env, "a string must not contain a NUL character (\\0)");
        return NULL;
    }
    return text;
}

napi_value make_double(napi_env env, double value) {
    napi_value result;
    napi_create_double(env, value, &result);
    return result;
}

napi_value make_int(napi_env env, int value) {
    napi_value result;
    napi_create_int32(env, value, &result);
    return result;
}

napi_value make_handle(napi_env env, tocsin_timer handle) {
    napi_value result;
    napi_create_bigint_uint64(env, handle, &result);
    return result;
}

napi_value make_string(napi_env env, const char *text) {
    napi_value result;
    napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &result);
    return result;
}

/* A label or spec: asks its length, then copies it whole (the engine's
 * snprintf-like rule); NULL with *status set when a call fails. */
char *copy_text(int (*get)(tocsin_engine *, tocsin_timer, char *, size_t),
                tocsin_engine *e, tocsin_timer t, int *status) {
    int length = get(e, t, NULL, 0);
    if (length < 0) {
        *status = length;
        return NULL;
    }
    char *text = malloc((size_t)length + 1);
    if (text == NULL) {
        *status = TOCSIN_ENOMEM;
        return NULL;
    }
    int again = get(e, t, text, (size_t)length + 1);
    if (again < 0) {
        free(text);
        *status = again;
        return NULL;
    }
    *status = 0;
    return text;
}

int begin(napi_env env, napi_callback_info info, size_t n, napi_value *argv,
          host **h) {
    size_t given = n;
    if (napi_get_cb_info(env, info, &given, argv, NULL, NULL) != napi_ok)
        return 0;
    for (size_t i = given; i < n; i++)
        argv[i] = undefined(env);
    if (!arg_host(env, argv[0], h))
        return 0;
    if ((*h)->engine == NULL) {
        throw_status(env, TOCSIN_ECLOSED, "Engine");
        return 0;
    }
    return 1;
}

int begin_timer(napi_env env, napi_callback_info info, size_t n,
                napi_value *argv, host **h, tocsin_timer *t) {
    return begin(env, info, n, argv, h) && arg_handle(env, argv[1], t);
}

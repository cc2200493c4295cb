/* An Engine's life on Node's loop: a POLLED engine whose fd a uv_poll_t
 * watches on the loop of napi_get_uv_event_loop (no thread of our own),
 * referenced only while a timer is armed so that node exits when the
 * script is done, and closed at the environment's cleanup (a worker's
 * end, the process's exit) if the script did not close it. */
#include <stdio.h>
#include <stdlib.h>

#include "addon.h"

static void maybe_free(host *h) {
    if (h->finalized && h->poll_closed)
        free(h);
}

static void on_poll_closed(uv_handle_t *handle) {
    host *h = handle->data;
    h->poll_closed = 1;
    /* Removing the hook is also how a running async cleanup hook says it
       is done. */
    if (h->cleanup != NULL) {
        napi_remove_async_cleanup_hook(h->cleanup);
        h->cleanup = NULL;
    }
    maybe_free(h);
}

/* Frees the engine at once (allowed from inside its own callbacks: it is
   torn down when that callback returns), then closes the poll handle. */
void host_close(host *h) {
    if (h->closed)
        return;
    h->closed = 1;
    tocsin_engine_free(h->engine);
    h->engine = NULL;
    if (h->deliver != NULL) {
        napi_delete_reference(h->env, h->deliver);
        h->deliver = NULL;
    }
    /* An error kept for a call under way stays: that call still throws it. */
    if (h->pending_error != NULL && h->in_call == 0) {
        napi_delete_reference(h->env, h->pending_error);
        h->pending_error = NULL;
    }
    if (h->has_poll) {
        uv_poll_stop(&h->poll);
        uv_close((uv_handle_t *)&h->poll, on_poll_closed);
    } else {
        on_poll_closed((uv_handle_t *)&h->poll);
    }
}

static void on_cleanup(napi_async_cleanup_hook_handle handle, void *data) {
    host *h = data;
    host_close(h); /* its poll handle's close removes the hook: done */
}

static void on_finalize(napi_env env, void *data, void *hint) {
    host *h = data;
    h->finalized = 1;
    if (h->closed)
        maybe_free(h);
    else
        host_close(h); /* frees it, now or once the poll handle is closed */
}

void host_set_ref(host *h, int ref) {
    if (!h->has_poll || h->closed)
        return;
    if (ref)
        uv_ref((uv_handle_t *)&h->poll);
    else
        uv_unref((uv_handle_t *)&h->poll);
}

/* The engine's fd is readable: deliver what is due. Handlers run through
   napi_make_callback, as Node's own timers run theirs: microtasks after
   each, and a throw is an uncaught exception of the process. */
static void on_readable(uv_poll_t *poll, int status, int events) {
    host *h = poll->data;
    if (h->closed)
        return;
    napi_handle_scope scope;
    napi_open_handle_scope(h->env, &scope);
    /* What is due is delivered either way. */
    tocsin_engine_dispatch(h->engine);
    if (status < 0 && !h->closed) {
        /* libuv stopped watching the fd (POLLERR & co): the engine's timers
           would go silent, and the stopped handle no longer holds the loop.
           Said as an uncaught exception, as a listener's throw is. */
        char message[160];
        snprintf(message, sizeof message, "Engine: watching its fd failed (%s): its timers no longer fire",
                 uv_strerror(status));
        napi_value code, text, error, number;
        napi_create_string_utf8(h->env, "TOCSIN_EIO", NAPI_AUTO_LENGTH, &code);
        napi_create_string_utf8(h->env, message, NAPI_AUTO_LENGTH, &text);
        napi_create_error(h->env, code, text, &error);
        napi_create_int32(h->env, TOCSIN_EIO, &number);
        napi_set_named_property(h->env, error, "errno", number);
        napi_fatal_exception(h->env, error);
    }
    napi_close_handle_scope(h->env, scope);
}

void host_on_event(tocsin_engine *engine, const tocsin_event *event,
                   void *user_data) {
    host *h = user_data;
    if (h->closed || h->deliver == NULL)
        return;
    napi_env env = h->env;
    napi_value deliver, global, result, argv[8];
    napi_get_reference_value(env, h->deliver, &deliver);
    napi_get_global(env, &global);
    argv[0] = make_handle(env, event->timer);
    argv[1] = make_int(env, event->kind);
    argv[2] = make_int(env, event->state);
    argv[3] = make_double(env, event->elapsed);
    argv[4] = make_double(env, event->remaining);
    argv[5] = make_double(env, (double)event->tick);
    argv[6] = make_double(env, event->lateness);
    argv[7] = make_double(env, (double)event->missed);
    napi_status called;
    if (h->in_call)
        called = napi_call_function(env, global, deliver, 8, argv, &result);
    else
        called = napi_make_callback(env, NULL, global, deliver, 8, argv, &result);
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (called == napi_ok && !pending)
        return;
    napi_value error;
    if (napi_get_and_clear_last_exception(env, &error) != napi_ok)
        return;
    if (!h->in_call) {
        napi_fatal_exception(env, error);
    } else if (h->pending_error == NULL) {
        /* Kept for the caller of advance() & co, closed engine or not; later
           events still come. In an array: a reference holds objects only
           (NAPI_VERSION 8), and a listener may throw 'oops' or undefined. */
        napi_value box;
        if (napi_create_array_with_length(env, 1, &box) != napi_ok ||
            napi_set_element(env, box, 0, error) != napi_ok ||
            napi_create_reference(env, box, 1, &h->pending_error) != napi_ok) {
            h->pending_error = NULL;
            napi_fatal_exception(env, error); /* never lost */
        }
    }
}

/* After advance() & co: throws the first error a handler threw. */
int host_rethrow(napi_env env, host *h) {
    if (h->pending_error == NULL)
        return 0;
    napi_value box, error;
    napi_get_reference_value(env, h->pending_error, &box);
    napi_get_element(env, box, 0, &error);
    napi_delete_reference(env, h->pending_error);
    h->pending_error = NULL;
    napi_throw(env, error);
    return 1;
}

/* host_new failed before the External was made: closes what was made
   (the poll handle's close frees h) and throws TOCSIN_EIO. */
static napi_value fail_new(napi_env env, host *h, const char *what) {
    h->finalized = 1; /* no External will be: freed once the poll is closed */
    host_close(h);
    return throw_status(env, TOCSIN_EIO, what);
}

napi_value host_new(napi_env env, int manual, napi_value deliver) {
    host *h = calloc(1, sizeof *h);
    if (h == NULL)
        return throw_status(env, TOCSIN_ENOMEM, "new Engine()");
    h->magic = HOST_MAGIC;
    h->env = env;
    h->poll_closed = 1;
    h->poll.data = h; /* on_poll_closed finds it there, poll or not */
    int status = tocsin_engine_new(manual ? TOCSIN_ENGINE_MANUAL_CLOCK : TOCSIN_ENGINE_POLLED,
                                   &h->engine);
    if (status < 0) {
        free(h);
        return throw_status(env, status, "new Engine()");
    }
    if (!manual) {
        uv_loop_t *loop = NULL;
        int fd = tocsin_engine_fd(h->engine);
        if (napi_get_uv_event_loop(env, &loop) != napi_ok || fd < 0 ||
            uv_poll_init(loop, &h->poll, fd) != 0) {
            tocsin_engine_free(h->engine);
            free(h);
            return throw_status(env, TOCSIN_EIO, "new Engine(): watching its fd");
        }
        h->has_poll = 1;
        h->poll_closed = 0;
        uv_unref((uv_handle_t *)&h->poll);
        if (uv_poll_start(&h->poll, UV_READABLE, on_readable) != 0)
            return fail_new(env, h, "new Engine(): watching its fd");
    }
    napi_value external;
    if (napi_create_reference(env, deliver, 1, &h->deliver) != napi_ok)
        return fail_new(env, h, "new Engine(): keeping its deliver function");
    if (napi_create_external(env, h, on_finalize, NULL, &external) != napi_ok)
        return fail_new(env, h, "new Engine(): making its handle");
    /* From here the External's finalizer frees h. */
    if (napi_add_async_cleanup_hook(env, on_cleanup, h, &h->cleanup) != napi_ok) {
        h->cleanup = NULL;
        host_close(h);
        return throw_status(env, TOCSIN_EIO, "new Engine(): registering its cleanup");
    }
    return external;
}

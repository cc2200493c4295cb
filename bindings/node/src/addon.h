/* The addon's shared parts: one `host` per Engine, which owns a tocsin
 * engine and, for a real clock, the uv_poll_t that watches its fd on
 * Node's own loop. Node-API version 8 only (node_api.h), so one build
 * loads on Node 18 and later. */
#ifndef TOCSIN_NODE_ADDON_H
#define TOCSIN_NODE_ADDON_H

#ifndef NAPI_VERSION
#define NAPI_VERSION 8 /* binding.gyp defines it too */
#endif
#include <node_api.h>
#include <uv.h>

#include "tocsin.h"

/* What ties a JavaScript Engine to its C engine. Lives on the thread of its
 * Node environment only (main thread or one worker), so nothing here is
 * locked. Freed once both the External is finalized and the poll handle is
 * closed (close_host), whichever comes last. */
typedef struct host {
    unsigned magic;           /* HOST_MAGIC: an External of ours */
    tocsin_engine *engine;    /* closed (not freed) by close_host */
    napi_env env;
    napi_ref deliver;         /* the JS function each event is passed to */
    uv_poll_t poll;           /* real clock only */
    int has_poll;
    int poll_closed;          /* uv_close's callback ran, or no poll */
    int finalized;            /* the External was collected */
    int closed;
    int in_call;              /* how deep inside advance & co (they nest:
                                 a listener may call advance()): JS is on
                                 the stack */
    napi_ref pending_error;   /* [the first throw of a handler during a
                                 call], an array so that a thrown string or
                                 number is kept too; the outermost call
                                 throws it, even if the engine was closed */
    napi_async_cleanup_hook_handle cleanup;
} host;

#define HOST_MAGIC 0x74637331u

/* host.c */
napi_value host_new(napi_env env, int manual, napi_value deliver);
void host_close(host *h);
void host_set_ref(host *h, int ref);
void host_on_event(tocsin_engine *engine, const tocsin_event *event,
                   void *user_data);
int host_rethrow(napi_env env, host *h);

/* args.c: reading arguments and throwing, each returns 0 after throwing */
int arg_host(napi_env env, napi_value value, host **out);
int arg_handle(napi_env env, napi_value value, tocsin_timer *out);
int arg_double(napi_env env, napi_value value, double *out);
int arg_int(napi_env env, napi_value value, int *out);
char *arg_string(napi_env env, napi_value value); /* malloc'd, or NULL */
napi_value throw_status(napi_env env, int status, const char *what);
napi_value throw_type(napi_env env, const char *message);
napi_value make_double(napi_env env, double value);
napi_value make_int(napi_env env, int value);
napi_value make_handle(napi_env env, tocsin_timer handle);
napi_value make_string(napi_env env, const char *text);
napi_value undefined(napi_env env);
/* A native function's arguments: argv[0] the engine (open, else it throws
   TOCSIN_ECLOSED), and for begin_timer argv[1] the timer's handle. Missing
   arguments read as undefined (and then fail their type check). */
int begin(napi_env env, napi_callback_info info, size_t n, napi_value *argv,
          host **h);
int begin_timer(napi_env env, napi_callback_info info, size_t n,
                napi_value *argv, host **h, tocsin_timer *t);
/* Each calls into C and returns its status through *status, or throws. */
char *copy_text(int (*get)(tocsin_engine *, tocsin_timer, char *, size_t),
                tocsin_engine *e, tocsin_timer t, int *status);

/* One native function as a table row: its JS name and its C body. */
typedef struct native {
    const char *name;
    napi_callback call;
} native;

extern const native engine_natives[];
extern const native timer_natives[];
extern const native query_natives[];

#endif

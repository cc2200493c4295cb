/*
 * runner.h — what runner.c (the steps) and runner_expect.c (the
 * expectations) of the C scenario runner share: one file's run.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include "scenario.h"
#include "tocsin.h"

enum { MAX_EVENTS = 1024 };

/* A bound name: its handle and the events its callback got since the last
   `expect events` of it (more than MAX_EVENTS: the rest counted only). */
typedef struct bound_timer {
    struct run *owner;   /* whose engine-wide log it adds to */
    int index;           /* its name's index */
    tocsin_timer handle;
    int count;
    int dropped;
    tocsin_event events[MAX_EVENTS];
} bound_timer;

typedef struct run {
    const scenario *s;
    tocsin_engine *engine;
    bound_timer *timers; /* by name index */
    char folder[64];     /* the scenario's own temporary folder */
    int status;          /* of the last step */
    double result;       /* of the last step */
    int order_count;     /* the engine-wide log since the last `expect order` */
    int order_dropped;
    struct { int name; tocsin_event event; } order[MAX_EVENTS];
    char failure[1024];  /* "FILE:LINE: ..." once it failed */
} run;

/* Checks one expectation; false with r->failure set. */
bool expect(run *r, const scenario_line *line);

/* Sets r->failure to "FILE:LINE: TEXT: why"; returns false. */
bool fail(run *r, const scenario_line *line, const char *format, ...) __attribute__((format(printf, 3, 4)));
double number(const scenario_line *line, int i);
/* Equal within 1e-6 (NaN only to NaN). */
bool same(double got, double expected);
const char *status_name(int status);

#endif

/*
 * scenario.h — a scenario file read into lines of checked tokens (the
 * format: bindings/contract/README.md). scenario_parse.c reads it;
 * runner.c runs it against libtocsin.so.
 */
#ifndef SCENARIO_H
#define SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

enum { SCENARIO_MAX_TOKENS = 64, SCENARIO_MAX_NAMES = 128 };

typedef struct scenario_line {
    int number;            /* 1-based line number in the file */
    char *text;            /* the line as written, trimmed, for messages */
    int count;             /* tokens, comments left out */
    char *tokens[SCENARIO_MAX_TOKENS]; /* quoted strings already unquoted */
    bool quoted[SCENARIO_MAX_TOKENS];  /* token i was a quoted string */
    bool is_expect;        /* first token "expect" */
    bool error_checked;    /* a step an `expect error` follows */
    int names[SCENARIO_MAX_TOKENS];    /* token i names timer names[i], or -1 */
} scenario_line;

typedef struct scenario {
    const char *path;
    scenario_line *lines;
    int line_count;
    char *names[SCENARIO_MAX_NAMES]; /* every timer name, in binding order */
    int name_count;
} scenario;

/* Reads and checks a whole file. On a parse error returns false with
   "FILE:LINE: parse error: why" (or "FILE: why") in message. */
bool scenario_read(const char *path, scenario *out, char *message, size_t cap);
void scenario_free(scenario *s);

/* The index of a bound name, or -1. */
int scenario_name_index(const scenario *s, const char *name);

/* Argument forms (scenario_parse.c checks them; runner.c reads them). */
bool scenario_number(const char *token, double *out);
int scenario_word_index(const char *token, const char *const *words);
extern const char *const scenario_states[];   /* by TOCSIN_IDLE ... */
extern const char *const scenario_clocks[];   /* by TOCSIN_CLOCK_* */
extern const char *const scenario_policies[]; /* by TOCSIN_TICKS_* */
extern const char *const scenario_kinds[];    /* by TOCSIN_EVENT_* */

/* One EVENT token: kind, optional detail, optional fields. */
enum { EVENT_FIELD_ELAPSED, EVENT_FIELD_REMAINING, EVENT_FIELD_LATENESS,
       EVENT_FIELD_MISSED, EVENT_FIELD_TICK, EVENT_FIELD_COUNT };
extern const char *const scenario_event_fields[];
typedef struct scenario_event {
    int kind;                 /* TOCSIN_EVENT_* */
    bool has_detail;
    double detail;            /* tick number, or TOCSIN_ state */
    bool has[EVENT_FIELD_COUNT];
    double field[EVENT_FIELD_COUNT];
} scenario_event;
bool scenario_event_parse(const char *token, scenario_event *out);

#endif

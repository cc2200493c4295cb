/*
 * runner_expect.c — the C scenario runner's expectations: each a query of
 * the engine (nothing changes), compared as bindings/contract/README.md
 * says, with a message that names what was expected and what came.
 */
#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*double_query)(tocsin_engine *, tocsin_timer, double *);

static bound_timer *named(run *r, const scenario_line *line) {
    return &r->timers[line->names[2]];
}

static bool compare(run *r, const scenario_line *line, int status, double got, double expected) {
    if (status < 0) return fail(r, line, "the query failed with %s", status_name(status));
    if (!same(got, expected)) return fail(r, line, "expected %.9g, got %.9g", expected, got);
    return true;
}

static bool timer_double(run *r, const scenario_line *line, double_query query) {
    double got = 0;
    int status = query(r->engine, named(r, line)->handle, &got);
    return compare(r, line, status, got, number(line, 3));
}

/* A copied string (label, calendar spec) against the quoted expectation. */
static bool timer_text(run *r, const scenario_line *line,
                       int (*query)(tocsin_engine *, tocsin_timer, char *, size_t)) {
    tocsin_timer t = named(r, line)->handle;
    int length = query(r->engine, t, NULL, 0);
    if (length < 0) return fail(r, line, "the query failed with %s", status_name(length));
    char *text = malloc((size_t)length + 1);
    if (!text) return fail(r, line, "out of memory");
    query(r->engine, t, text, (size_t)length + 1);
    bool ok = strcmp(text, line->tokens[3]) == 0 || fail(r, line, "expected \"%s\", got \"%s\"", line->tokens[3], text);
    free(text);
    return ok;
}

static bool laps(run *r, const scenario_line *line) {
    double got[64];
    int count = tocsin_timer_laps(r->engine, named(r, line)->handle, got, 64);
    if (count < 0) return fail(r, line, "the query failed with %s", status_name(count));
    int expected = line->count - 3;
    bool ok = count == expected;
    for (int i = 0; ok && i < count; i++) ok = same(got[i], number(line, 3 + i));
    if (ok) return true;
    char shown[512] = "";
    for (int i = 0; i < count && i < 64; i++)
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), " %.9g", got[i]);
    return fail(r, line, "got %d laps:%s", count, count ? shown : " none");
}

static void describe(const tocsin_event *event, char *out, size_t cap) {
    static const char *const states[] = {"idle", "running", "suspended", "finished", "canceled"};
    const char *kind = event->kind >= 1 && event->kind <= 3 ? scenario_kinds[event->kind] : "unknown";
    int used = snprintf(out, cap, "%s", kind);
    if (event->kind == TOCSIN_EVENT_TICK)
        used += snprintf(out + used, cap - (size_t)used, ":%llu", (unsigned long long)event->tick);
    else if (event->kind == TOCSIN_EVENT_STATE && event->state >= 0 && event->state <= 4)
        used += snprintf(out + used, cap - (size_t)used, ":%s", states[event->state]);
    snprintf(out + used, cap - (size_t)used, ",elapsed=%.9g,remaining=%.9g,lateness=%.9g,missed=%llu",
             event->elapsed, event->remaining, event->lateness, (unsigned long long)event->missed);
}

static bool matches(const tocsin_event *event, const scenario_event *wanted) {
    if (event->kind != wanted->kind) return false;
    if (wanted->has_detail && !same(event->kind == TOCSIN_EVENT_TICK ? (double)event->tick : event->state, wanted->detail))
        return false;
    double fields[EVENT_FIELD_COUNT] = {event->elapsed, event->remaining, event->lateness, (double)event->missed,
                                        (double)event->tick};
    for (int i = 0; i < EVENT_FIELD_COUNT; i++)
        if (wanted->has[i] && !same(fields[i], wanted->field[i])) return false;
    return true;
}

static bool events(run *r, const scenario_line *line) {
    bound_timer *timer = named(r, line);
    int expected = line->count - 3, count = timer->count, dropped = timer->dropped;
    bool ok = count == expected && dropped == 0;
    for (int i = 0; ok && i < count; i++) {
        scenario_event wanted;
        scenario_event_parse(line->tokens[3 + i], &wanted);
        ok = matches(&timer->events[i], &wanted);
    }
    timer->count = timer->dropped = 0;
    if (ok) return true;
    char shown[900] = "";
    for (int i = 0; i < count && strlen(shown) < sizeof shown - 200; i++) {
        char one[200];
        describe(&timer->events[i], one, sizeof one);
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), " %s", one);
    }
    return fail(r, line, "got %d event%s:%s%s", count + dropped, count + dropped == 1 ? "" : "s",
                count ? shown : " none", strlen(shown) >= sizeof shown - 200 || dropped ? " ..." : "");
}

/* The engine-wide log: every bound timer's events in delivery order. */
static bool order(run *r, const scenario_line *line) {
    int expected = line->count - 2, count = r->order_count, dropped = r->order_dropped;
    bool ok = count == expected && dropped == 0;
    for (int i = 0; ok && i < count; i++) {
        const char *token = line->tokens[2 + i], *slash = strchr(token, '/');
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(slash - token), token);
        scenario_event wanted;
        scenario_event_parse(slash + 1, &wanted);
        ok = scenario_name_index(r->s, name) == r->order[i].name && matches(&r->order[i].event, &wanted);
    }
    r->order_count = r->order_dropped = 0;
    if (ok) return true;
    char shown[900] = "";
    for (int i = 0; i < count && strlen(shown) < sizeof shown - 250; i++) {
        char one[200];
        describe(&r->order[i].event, one, sizeof one);
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), " %s/%s", r->s->names[r->order[i].name], one);
    }
    return fail(r, line, "got %d event%s:%s%s", count + dropped, count + dropped == 1 ? "" : "s",
                count ? shown : " none", strlen(shown) >= sizeof shown - 250 || dropped ? " ..." : "");
}

static bool skipped_until(run *r, const scenario_line *line) {
    double until = 0;
    int status = tocsin_calendar_skipped_until(r->engine, named(r, line)->handle, &until);
    if (status < 0) return fail(r, line, "the query failed with %s", status_name(status));
    if (strcmp(line->tokens[3], "none") == 0)
        return status == 0 || fail(r, line, "expected none, got %.9g", until);
    if (status == 0) return fail(r, line, "expected %s, got none", line->tokens[3]);
    return compare(r, line, TOCSIN_OK, until, number(line, 3));
}

static bool timer_word(run *r, const scenario_line *line, int got, const char *const *words) {
    if (got < 0) return fail(r, line, "the query failed with %s", status_name(got));
    int expected = scenario_word_index(line->tokens[3], words), known = 0;
    while (words[known]) known++;
    return got == expected || fail(r, line, "expected %s, got %s", line->tokens[3], got < known ? words[got] : "?");
}

bool expect(run *r, const scenario_line *line) {
    const char *what = line->tokens[1];
    tocsin_engine *e = r->engine;
    tocsin_timer t = line->count > 2 && line->names[2] >= 0 ? named(r, line)->handle : 0;
    double got = 0;
    if (strcmp(what, "error") == 0)
        return strcmp(status_name(r->status), line->tokens[2]) == 0 ||
               fail(r, line, "expected %s, got %s", line->tokens[2], status_name(r->status));
    if (strcmp(what, "result") == 0) return compare(r, line, TOCSIN_OK, r->result, number(line, 2));
    if (strcmp(what, "state") == 0) return timer_word(r, line, tocsin_timer_state(e, t), scenario_states);
    if (strcmp(what, "clock") == 0) return timer_word(r, line, tocsin_timer_clock(e, t), scenario_clocks);
    if (strcmp(what, "elapsed") == 0) return timer_double(r, line, tocsin_timer_elapsed);
    if (strcmp(what, "remaining") == 0) return timer_double(r, line, tocsin_timer_remaining);
    if (strcmp(what, "duration") == 0) return timer_double(r, line, tocsin_timer_duration);
    if (strcmp(what, "leeway") == 0) return timer_double(r, line, tocsin_timer_leeway);
    if (strcmp(what, "alarm-time") == 0) return timer_double(r, line, tocsin_timer_alarm_time);
    if (strcmp(what, "laps") == 0) return laps(r, line);
    if (strcmp(what, "label") == 0) return timer_text(r, line, tocsin_timer_label);
    if (strcmp(what, "calendar") == 0) return timer_text(r, line, tocsin_timer_calendar);
    if (strcmp(what, "skipped-until") == 0) return skipped_until(r, line);
    if (strcmp(what, "events") == 0) return events(r, line);
    if (strcmp(what, "order") == 0) return order(r, line);
    if (strcmp(what, "now") == 0 || strcmp(what, "wall-clock") == 0) {
        int status = (strcmp(what, "now") == 0 ? tocsin_engine_now : tocsin_engine_wall_clock)(e, &got);
        return compare(r, line, status, got, number(line, 2));
    }
    /* timers */
    int count = tocsin_engine_timers(e, NULL, 0);
    return compare(r, line, count < 0 ? count : TOCSIN_OK, count, number(line, 2));
}

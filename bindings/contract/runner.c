/*
 * runner.c — runs the scenario files (bindings/contract/README.md) against
 * libtocsin.so through its C header: one manual-clock engine per file,
 * every step a C call, every expectation a query. Prints each failure as
 * FILE:LINE and ends with "scenarios (C): N passed, N failed".
 *
 * Usage: contract_runner DIR|FILE...   (a DIR: its *.scenario files, sorted)
 */
#include "runner.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void record(tocsin_engine *engine, const tocsin_event *event, void *user_data) {
    (void)engine;
    bound_timer *timer = user_data;
    run *r = timer->owner;
    if (timer->count == MAX_EVENTS) timer->dropped++;
    else timer->events[timer->count++] = *event;
    if (r->order_count == MAX_EVENTS) r->order_dropped++;
    else r->order[r->order_count].name = timer->index, r->order[r->order_count++].event = *event;
}

const char *status_name(int status) {
    return status == TOCSIN_OK ? "OK" : tocsin_err_name(status) + strlen("TOCSIN_");
}

bool fail(run *r, const scenario_line *line, const char *format, ...) {
    int used = snprintf(r->failure, sizeof r->failure, "%s:%d: %s: ", r->s->path, line->number, line->text);
    va_list arguments;
    va_start(arguments, format);
    if (used >= 0 && (size_t)used < sizeof r->failure)
        vsnprintf(r->failure + used, sizeof r->failure - (size_t)used, format, arguments);
    va_end(arguments);
    return false;
}

double number(const scenario_line *line, int i) {
    double value = 0;
    scenario_number(line->tokens[i], &value);
    return value;
}

bool same(double got, double expected) {
    if (isnan(expected) || isnan(got)) return isnan(expected) && isnan(got);
    if (isinf(expected) || isinf(got)) return got == expected;
    return fabs(got - expected) <= 1e-6;
}

static bound_timer *timer_at(run *r, const scenario_line *line, int i) {
    return &r->timers[line->names[i]];
}

/* Binds token i's name to handle, with the recording callback. */
static void bind(run *r, const scenario_line *line, int i, tocsin_timer handle) {
    bound_timer *timer = timer_at(r, line, i);
    timer->owner = r;
    timer->index = line->names[i];
    timer->handle = handle;
    timer->count = timer->dropped = 0;
    if (handle) tocsin_timer_set_callback(r->engine, handle, record, timer);
}

static bool new_engine(run *r) {
    return tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &r->engine) == TOCSIN_OK;
}

static void file_path(const run *r, const char *name, char *out, size_t cap) {
    snprintf(out, cap, "%s/%s", r->folder, name);
}

static int load(run *r, const scenario_line *line) {
    char path[512];
    file_path(r, line->tokens[1], path, sizeof path);
    size_t restored = 0;
    int status = tocsin_engine_load(r->engine, path, &restored);
    for (int i = 2; i < line->count; i++) bind(r, line, i, 0);
    if (status != TOCSIN_OK) return status;
    r->result = (double)restored;
    int total = tocsin_engine_timers(r->engine, NULL, 0);
    if (total < 0) return total;
    tocsin_timer *handles = calloc((size_t)total + 1, sizeof *handles);
    if (!handles) return TOCSIN_ENOMEM;
    tocsin_engine_timers(r->engine, handles, (size_t)total);
    int names = line->count - 2;
    for (int i = 0; i < names && (size_t)i < restored; i++)
        bind(r, line, 2 + i, handles[(size_t)total - restored + (size_t)i]);
    free(handles);
    return TOCSIN_OK;
}

/* Runs one step: sets r->status and r->result. */
static void step(run *r, const scenario_line *line) {
    const char *word = line->tokens[0];
    tocsin_engine *e = r->engine;
    tocsin_timer t = line->count > 1 && line->names[1] >= 0 ? timer_at(r, line, 1)->handle : 0;
    tocsin_timer made = 0;
    double value = 0;
    int status;
    r->result = 0;
    if (strcmp(word, "countdown") == 0) status = tocsin_countdown_new(e, number(line, 2), &made);
    else if (strcmp(word, "stopwatch") == 0) status = tocsin_stopwatch_new(e, &made);
    else if (strcmp(word, "alarm") == 0) status = tocsin_alarm_new(e, number(line, 2), &made);
    else if (strcmp(word, "calendar") == 0) status = tocsin_calendar_new(e, line->tokens[2], &made);
    else if (strcmp(word, "start") == 0) status = tocsin_timer_start(e, t);
    else if (strcmp(word, "suspend") == 0) status = tocsin_timer_suspend(e, t);
    else if (strcmp(word, "resume") == 0) status = tocsin_timer_resume(e, t);
    else if (strcmp(word, "cancel") == 0) status = tocsin_timer_cancel(e, t);
    else if (strcmp(word, "free") == 0) status = tocsin_timer_free(e, t);
    else if (strcmp(word, "adjust") == 0) status = tocsin_timer_adjust(e, t, number(line, 2));
    else if (strcmp(word, "tick") == 0) status = tocsin_timer_set_tick(e, t, number(line, 2));
    else if (strcmp(word, "tick-policy") == 0)
        status = tocsin_timer_set_tick_policy(e, t, scenario_word_index(line->tokens[2], scenario_policies));
    else if (strcmp(word, "leeway") == 0) status = tocsin_timer_set_leeway(e, t, number(line, 2));
    else if (strcmp(word, "clock") == 0)
        status = tocsin_timer_set_clock(e, t, scenario_word_index(line->tokens[2], scenario_clocks));
    else if (strcmp(word, "label") == 0) status = tocsin_timer_set_label(e, t, line->tokens[2]);
    else if (strcmp(word, "lap") == 0) { status = tocsin_timer_lap(e, t, &value); r->result = value; }
    else if (strcmp(word, "skip") == 0) status = tocsin_calendar_skip(e, t, (unsigned)strtoul(line->tokens[2], NULL, 10));
    else if (strcmp(word, "skip-until") == 0) status = tocsin_calendar_skip_until(e, t, number(line, 2));
    else if (strcmp(word, "advance") == 0) status = tocsin_engine_advance(e, number(line, 1));
    else if (strcmp(word, "suspend-machine") == 0) status = tocsin_engine_simulate_suspend(e, number(line, 1));
    else if (strcmp(word, "set-wall-clock") == 0) status = tocsin_engine_set_wall_clock(e, number(line, 1));
    else if (strcmp(word, "save") == 0) {
        char path[512];
        file_path(r, line->tokens[1], path, sizeof path);
        status = tocsin_engine_save(e, path);
    } else if (strcmp(word, "load") == 0) status = load(r, line);
    else { /* new-engine */
        tocsin_engine_free(r->engine);
        status = new_engine(r) ? TOCSIN_OK : TOCSIN_ENOMEM;
    }
    if (status > 0) { r->result = status; status = TOCSIN_OK; }
    if (strcmp(word, "countdown") == 0 || strcmp(word, "stopwatch") == 0 || strcmp(word, "alarm") == 0 ||
        strcmp(word, "calendar") == 0)
        bind(r, line, 1, status == TOCSIN_OK ? made : 0);
    r->status = status;
}

/* Runs one file; prints its failure, if any. */
static bool run_file(const char *path) {
    scenario s;
    char message[1024];
    if (!scenario_read(path, &s, message, sizeof message)) {
        printf("FAIL %s\n", message);
        scenario_free(&s);
        return false;
    }
    run r = {.s = &s};
    r.timers = calloc(SCENARIO_MAX_NAMES, sizeof *r.timers);
    snprintf(r.folder, sizeof r.folder, "/tmp/tocsin-scenario-XXXXXX");
    bool ok = r.timers && mkdtemp(r.folder) && new_engine(&r);
    if (!ok) snprintf(r.failure, sizeof r.failure, "%s: cannot set up (memory, a temporary folder, an engine)", path);
    for (int i = 0; ok && i < s.line_count; i++) {
        const scenario_line *line = &s.lines[i];
        if (line->is_expect) { ok = expect(&r, line); continue; }
        step(&r, line);
        if (r.status != TOCSIN_OK && !line->error_checked)
            ok = fail(&r, line, "failed with %s (no 'expect error' follows)", status_name(r.status));
        else if (r.status == TOCSIN_OK && strcmp(line->tokens[0], "load") == 0 && r.result != line->count - 2)
            ok = fail(&r, line, "restored %.0f timers for %d names", r.result, line->count - 2);
    }
    tocsin_engine_free(r.engine);
    for (int i = 0; i < s.line_count; i++) /* the files save and load named */
        if (strcmp(s.lines[i].tokens[0], "save") == 0 || strcmp(s.lines[i].tokens[0], "load") == 0) {
            char file[512];
            file_path(&r, s.lines[i].tokens[1], file, sizeof file);
            unlink(file);
        }
    rmdir(r.folder);
    free(r.timers);
    if (ok) printf("ok   %s\n", path);
    else printf("FAIL %s\n", r.failure);
    scenario_free(&s);
    return ok;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.scenario files of a folder, sorted; or the path itself. */
static int paths_of(const char *path, char ***out) {
    DIR *folder = opendir(path);
    if (!folder) {
        *out = malloc(sizeof **out);
        if (*out) (*out)[0] = strdup(path);
        return *out ? 1 : 0;
    }
    int count = 0;
    *out = NULL;
    for (struct dirent *entry; (entry = readdir(folder));) {
        size_t length = strlen(entry->d_name);
        if (length < 9 || strcmp(entry->d_name + length - 9, ".scenario") != 0) continue;
        char **grown = realloc(*out, (size_t)(count + 1) * sizeof *grown);
        if (!grown) break;
        *out = grown;
        if (asprintf(&grown[count], "%s/%s", path, entry->d_name) >= 0) count++;
    }
    closedir(folder);
    if (count) qsort(*out, (size_t)count, sizeof **out, by_name);
    return count;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
        return 2;
    }
    int passed = 0, failed = 0;
    for (int a = 1; a < argc; a++) {
        char **paths;
        int count = paths_of(argv[a], &paths);
        if (count == 0) { printf("FAIL %s: no .scenario files\n", argv[a]); failed++; }
        for (int i = 0; i < count; i++) {
            if (run_file(paths[i])) passed++; else failed++;
            free(paths[i]);
        }
        free(paths);
    }
    printf("scenarios (C): %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/*
 * scenario_parse.c — reads a scenario file (bindings/contract/README.md)
 * into checked lines: tokens, argument forms, names bound before use. Every
 * fault is a message with the file and line, never a crash, so a broken
 * scenario fails alone.
 */
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const scenario_states[] = {"idle", "running", "suspended", "finished", "canceled", NULL};
const char *const scenario_clocks[] = {"boot", "awake", NULL};
const char *const scenario_policies[] = {"every", "coalesce", NULL};
const char *const scenario_kinds[] = {"", "tick", "state", "finish", NULL};
const char *const scenario_event_fields[] = {"elapsed", "remaining", "lateness", "missed", "tick", NULL};
static const char *const error_names[] = {"OK", "EINVAL", "ENOENT", "ESTATE", "ENOMEM", "EIO",
                                          "ECORRUPT", "ECLOSED", "EUNAVAILABLE", "ERANGE", NULL};

/* Argument forms, one letter each: B a name this step binds, N a bound
   name, n NUMBER, c COUNT, s STRING, f FILE, S STATE, C CLOCK, P POLICY,
   E ERROR, x NUMBER or "none", v EVENT, o NAME/EVENT. A '*' repeats the form before it
   (zero or more times). */
typedef struct keyword { const char *word; const char *forms; } keyword;
static const keyword steps[] = {
    {"countdown", "Bn"}, {"stopwatch", "B"}, {"alarm", "Bn"}, {"calendar", "Bs"},
    {"start", "N"}, {"suspend", "N"}, {"resume", "N"}, {"cancel", "N"}, {"free", "N"},
    {"adjust", "Nn"}, {"tick", "Nn"}, {"tick-policy", "NP"}, {"leeway", "Nn"}, {"clock", "NC"},
    {"label", "Ns"}, {"lap", "N"}, {"skip", "Nc"}, {"skip-until", "Nn"}, {"advance", "n"},
    {"suspend-machine", "n"}, {"set-wall-clock", "n"}, {"save", "f"}, {"load", "fB*"},
    {"new-engine", ""}, {NULL, NULL}};
static const keyword expectations[] = {
    {"error", "E"}, {"result", "n"}, {"state", "NS"}, {"elapsed", "Nn"}, {"remaining", "Nn"},
    {"duration", "Nn"}, {"laps", "Nn*"}, {"label", "Ns"}, {"clock", "NC"}, {"leeway", "Nn"},
    {"alarm-time", "Nn"}, {"calendar", "Ns"}, {"skipped-until", "Nx"}, {"now", "n"},
    {"wall-clock", "n"}, {"timers", "c"}, {"events", "Nv*"}, {"order", "o*"}, {NULL, NULL}};

int scenario_word_index(const char *token, const char *const *words) {
    for (int i = 0; words[i]; i++)
        if (words[i][0] && strcmp(token, words[i]) == 0) return i;
    return -1;
}

static bool all_of(const char *text, const char *allowed_punctuation, bool first_letter) {
    if (!*text || (first_letter && !isalpha((unsigned char)*text))) return false;
    for (const char *p = text; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr(allowed_punctuation, *p)) return false;
    return true;
}

static bool digits(const char **p) {
    const char *start = *p;
    while (isdigit((unsigned char)**p)) (*p)++;
    return *p > start;
}

bool scenario_number(const char *token, double *out) {
    if (strcmp(token, "nan") == 0) { *out = NAN; return true; }
    if (strcmp(token, "inf") == 0) { *out = INFINITY; return true; }
    if (strcmp(token, "-inf") == 0) { *out = -INFINITY; return true; }
    const char *p = token;
    if (*p == '-') p++;
    if (!digits(&p)) return false;
    if (*p == '.') { p++; if (!digits(&p)) return false; }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!digits(&p)) return false;
    }
    if (*p) return false;
    errno = 0;
    *out = strtod(token, NULL);
    return true;
}

bool scenario_event_parse(const char *token, scenario_event *out) {
    memset(out, 0, sizeof *out);
    char copy[256];
    if (strlen(token) >= sizeof copy) return false;
    strcpy(copy, token);
    char *rest = copy, *part = strsep(&rest, ",");
    char *detail = strchr(part, ':');
    if (detail) *detail++ = '\0';
    out->kind = scenario_word_index(part, scenario_kinds);
    if (out->kind < 0) return false;
    if (detail) {
        out->has_detail = true;
        if (out->kind == 2) {
            int state = scenario_word_index(detail, scenario_states);
            if (state < 0) return false;
            out->detail = state;
        } else if (out->kind != 1 || !scenario_number(detail, &out->detail)) {
            return false; /* a FINISH has no detail; a TICK's is its number */
        }
    }
    while ((part = strsep(&rest, ","))) {
        char *value = strchr(part, '=');
        if (!value) return false;
        *value++ = '\0';
        int field = scenario_word_index(part, scenario_event_fields);
        if (field < 0 || !scenario_number(value, &out->field[field])) return false;
        out->has[field] = true;
    }
    return true;
}

/* Splits one line into tokens; false with a reason on a bad quote. */
static bool tokenize(char *text, scenario_line *line, char *why, size_t cap) {
    char *p = text;
    while (true) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '#') return true;
        if (line->count == SCENARIO_MAX_TOKENS) return snprintf(why, cap, "more than %d tokens", SCENARIO_MAX_TOKENS), false;
        char *start = p, *write = p;
        bool quoted = *p == '"';
        if (quoted) {
            start = write = ++p;
            while (*p != '"') {
                if (!*p) return snprintf(why, cap, "a quoted string is not closed"), false;
                if (*p == '\\') {
                    p++;
                    if (*p != '"' && *p != '\\') return snprintf(why, cap, "only \\\" and \\\\ are allowed in a quoted string"), false;
                }
                *write++ = *p++;
            }
            p++;
            if (*p && *p != ' ' && *p != '\t') return snprintf(why, cap, "a closing quote must end the token"), false;
        } else {
            while (*p && *p != ' ' && *p != '\t') {
                if (*p == '"') return snprintf(why, cap, "a quote inside a word"), false;
                *write++ = *p++;
            }
        }
        if (*p) p++;
        *write = '\0';
        line->quoted[line->count] = quoted;
        line->tokens[line->count++] = strdup(start);
    }
}

int scenario_name_index(const scenario *s, const char *name) {
    for (int i = 0; i < s->name_count; i++)
        if (strcmp(s->names[i], name) == 0) return i;
    return -1;
}

/* Checks token i against its form; false with a reason. */
static bool check_form(scenario *s, scenario_line *line, int i, char form, char *why, size_t cap) {
    const char *token = line->tokens[i];
    double number;
    scenario_event event;
    if (line->quoted[i] != (form == 's'))
        return snprintf(why, cap, form == 's' ? "'%s' must be a quoted string" : "\"%s\" must not be quoted", token), false;
    switch (form) {
    case 'B':
        if (!all_of(token, "_-", true)) return snprintf(why, cap, "'%s' is not a timer name", token), false;
        if (scenario_name_index(s, token) >= 0) return snprintf(why, cap, "'%s' is bound already", token), false;
        if (s->name_count == SCENARIO_MAX_NAMES) return snprintf(why, cap, "more than %d timers", SCENARIO_MAX_NAMES), false;
        line->names[i] = s->name_count;
        s->names[s->name_count++] = strdup(token);
        return true;
    case 'N':
        line->names[i] = scenario_name_index(s, token);
        if (line->names[i] < 0) return snprintf(why, cap, "no timer named '%s'", token), false;
        return true;
    case 'n': if (scenario_number(token, &number)) return true; break;
    case 'x': if (strcmp(token, "none") == 0 || scenario_number(token, &number)) return true; break;
    case 'c': if (all_of(token, "", false) && strspn(token, "0123456789") == strlen(token)) return true; break;
    case 's': return true;
    case 'f': if (all_of(token, "_-.", false)) return true; break;
    case 'S': if (scenario_word_index(token, scenario_states) >= 0) return true; break;
    case 'C': if (scenario_word_index(token, scenario_clocks) >= 0) return true; break;
    case 'P': if (scenario_word_index(token, scenario_policies) >= 0) return true; break;
    case 'E': if (scenario_word_index(token, error_names) >= 0) return true; break;
    case 'v': if (scenario_event_parse(token, &event)) return true; break;
    case 'o': {
        const char *slash = strchr(token, '/');
        if (!slash || !scenario_event_parse(slash + 1, &event)) break;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(slash - token), token);
        if (scenario_name_index(s, name) < 0) return snprintf(why, cap, "no timer named '%s'", name), false;
        return true;
    }
    }
    static const char *const form_names[] = {"n", "a NUMBER", "x", "a NUMBER or none", "c", "a COUNT",
        "f", "a FILE name", "S", "a STATE", "C", "a CLOCK", "P", "a tick POLICY", "E", "an ERROR name",
        "v", "an EVENT", "o", "NAME/EVENT", NULL};
    const char *what = "valid";
    for (int k = 0; form_names[k]; k += 2)
        if (form_names[k][0] == form) what = form_names[k + 1];
    return snprintf(why, cap, "'%s' is not %s", token, what), false;
}

/* Checks a line's keyword and arguments, binding the names it makes. */
static bool check_line(scenario *s, scenario_line *line, char *why, size_t cap) {
    for (int i = 0; i < SCENARIO_MAX_TOKENS; i++) line->names[i] = -1;
    line->is_expect = strcmp(line->tokens[0], "expect") == 0;
    int first = line->is_expect ? 2 : 1;
    if (line->is_expect && line->count < 2) return snprintf(why, cap, "expect what?"), false;
    const keyword *table = line->is_expect ? expectations : steps, *found = NULL;
    for (const keyword *k = table; k->word; k++)
        if (strcmp(k->word, line->tokens[first - 1]) == 0) found = k;
    if (!found || line->quoted[first - 1])
        return snprintf(why, cap, "unknown %s '%s'", line->is_expect ? "expectation" : "step", line->tokens[first - 1]), false;
    const char *forms = found->forms;
    size_t fixed = strcspn(forms, "*");
    bool repeats = forms[fixed] == '*';
    int given = line->count - first;
    if (repeats ? given < (int)fixed - 1 : given != (int)fixed)
        return snprintf(why, cap, "'%s' takes %s%zu argument%s, got %d", found->word, repeats ? "at least " : "",
                        repeats ? fixed - 1 : fixed, (repeats ? fixed - 1 : fixed) == 1 ? "" : "s", given), false;
    for (int i = first; i < line->count; i++) {
        size_t at = (size_t)(i - first);
        char form = at < fixed ? forms[at] : forms[fixed - 1];
        if (!check_form(s, line, i, form, why, cap)) return false;
    }
    return true;
}

static char *trimmed(char *text) {
    while (*text == ' ' || *text == '\t') text++;
    size_t length = strlen(text);
    while (length && strchr(" \t\r\n", text[length - 1])) text[--length] = '\0';
    return text;
}

bool scenario_read(const char *path, scenario *out, char *message, size_t cap) {
    memset(out, 0, sizeof *out);
    out->path = path;
    FILE *file = fopen(path, "r");
    if (!file) return snprintf(message, cap, "%s: %s", path, strerror(errno)), false;
    char *buffer = NULL, why[512];
    size_t size = 0;
    bool ok = true;
    int number = 0, last_step = -1;
    while (ok && getline(&buffer, &size, file) >= 0) {
        number++;
        char *text = trimmed(buffer);
        scenario_line line = {.number = number, .text = strdup(text)};
        if (!tokenize(text, &line, why, sizeof why) || (line.count && !check_line(out, &line, why, sizeof why))) {
            snprintf(message, cap, "%s:%d: parse error: %s", path, number, why);
            ok = false;
        } else if (line.count && line.is_expect && last_step < 0 &&
                   (strcmp(line.tokens[1], "error") == 0 || strcmp(line.tokens[1], "result") == 0)) {
            snprintf(message, cap, "%s:%d: parse error: 'expect %s' before any step", path, number, line.tokens[1]);
            ok = false;
        }
        if (line.count) {
            scenario_line *grown = realloc(out->lines, (size_t)(out->line_count + 1) * sizeof *grown);
            if (!grown) { ok = false; snprintf(message, cap, "%s: out of memory", path); }
            else {
                out->lines = grown;
                out->lines[out->line_count++] = line; /* kept even when faulty: scenario_free frees it */
                if (!ok) continue;
                if (!line.is_expect) last_step = out->line_count - 1;
                else if (strcmp(line.tokens[1], "error") == 0 && last_step >= 0) out->lines[last_step].error_checked = true;
                continue;
            }
        }
        for (int i = 0; i < line.count; i++) free(line.tokens[i]);
        free(line.text);
    }
    free(buffer);
    if (ok && ferror(file)) { snprintf(message, cap, "%s: %s", path, strerror(errno)); ok = false; }
    fclose(file);
    return ok;
}

void scenario_free(scenario *s) {
    for (int i = 0; i < s->line_count; i++) {
        for (int k = 0; k < s->lines[i].count; k++) free(s->lines[i].tokens[k]);
        free(s->lines[i].text);
    }
    for (int i = 0; i < s->name_count; i++) free(s->names[i]);
    free(s->lines);
    memset(s, 0, sizeof *s);
}

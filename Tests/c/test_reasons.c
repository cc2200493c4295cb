/* tocsin_calendar_check's reasons fit the 256 bytes tocsin.h promises, however
   long the bad text they quote: a quote is cut on a UTF-8 boundary and ends
   in "…", and the reason is never truncated by a 256-byte buffer. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define REASON_MAX 256

/* A spec of prefix, `count` copies of unit, then suffix (malloc'd). */
static char *spec_of(const char *prefix, const char *unit, int count, const char *suffix) {
    size_t length = strlen(prefix) + strlen(unit) * (size_t)count + strlen(suffix);
    char *spec = malloc(length + 1);
    strcpy(spec, prefix);
    char *end = spec + strlen(prefix);
    for (int i = 0; i < count; i++) end = stpcpy(end, unit);
    strcpy(end, suffix);
    return spec;
}

/* Whole UTF-8 sequences only (a cut in the middle of one would show). */
static int is_utf8(const unsigned char *text) {
    while (*text) {
        int extra = *text < 0x80 ? 0 : (*text & 0xE0) == 0xC0 ? 1 : (*text & 0xF0) == 0xE0 ? 2 : (*text & 0xF8) == 0xF0 ? 3 : -1;
        if (extra < 0) return 0;
        text++;
        for (int i = 0; i < extra; i++, text++) {
            if ((*text & 0xC0) != 0x80) return 0;
        }
    }
    return 1;
}

/* The reason for spec: it fits in REASON_MAX with its NUL, is whole UTF-8,
   and a REASON_MAX buffer gets all of it. Returns 1 if its quote was cut. */
static int check_reason(const char *spec) {
    char big[8192], exact[REASON_MAX];
    memset(big, 0x7f, sizeof big);
    memset(exact, 0x7f, sizeof exact);
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_check(spec, big, sizeof big));
    CHECK_EQ(TOCSIN_EINVAL, tocsin_calendar_check(spec, exact, sizeof exact));
    size_t length = strnlen(big, sizeof big);
    if (length >= REASON_MAX) fprintf(stderr, "  %zu-byte reason: %.80s...\n", length, big);
    CHECK(length < REASON_MAX);
    CHECK(strncmp(big, "column ", 7) == 0);
    CHECK(is_utf8((const unsigned char *)big));
    CHECK(memchr(exact, 0, sizeof exact) != NULL);
    CHECK(strcmp(big, exact) == 0);
    return strstr(big, "…'") != NULL;
}

static void long_bad_text_is_quoted_in_part(void) {
    struct { const char *prefix, *unit; int count; const char *suffix; } cases[] = {
        {"Mon ", "x", 4000, ""},                    /* not a weekday, date, time or zone */
        {"Mon ", "é", 2000, ""},                    /* the same in 2-byte characters */
        {"", "€", 1300, " 07:00"},                  /* 3-byte ones, first word */
        {"Mon,", "Tu", 2000, " 07:00"},             /* a weekday list's part */
        {"Mon..", "F", 3000, " 07:00"},             /* a weekday range's bound */
        {"*-*-* 07:", "1", 3000, ""},               /* a minute too long for a number */
        {"*-*-* 07:00 Europe/", "é", 1500, ""},     /* an unknown time zone */
        {"2027-", "9", 3000, "-01 07:00"},          /* a year */
        {"*-*-* 07:00:00.", "5", 3000, ""},         /* fractional seconds */
        {"*-*-* 07:", "1/", 1500, "1"},             /* more than one / */
        {"*-*-* 07:", "1..", 1000, "2"},            /* more than one .. */
        {"*-*-* 07:0/", "x", 3000, ""},             /* a repetition */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *spec = spec_of(cases[i].prefix, cases[i].unit, cases[i].count, cases[i].suffix);
        check_reason(spec);
        free(spec);
    }
    char *spec = spec_of("Mon ", "x", 4000, "");
    CHECK(check_reason(spec)); /* cut, and says so */
    free(spec);
    CHECK(!check_reason("Mon Mun 07:00")); /* a short quote stays whole */
}

static void a_spec_of_ten_thousand_characters(void) {
    char *spec = spec_of("", "Q", 10000, "");
    check_reason(spec);
    free(spec);
    spec = spec_of("Mon ", "é", 5000, "");
    check_reason(spec);
    free(spec);
}

const test_case reasons_tests[] = {
    {"long_bad_text_is_quoted_in_part", long_bad_text_is_quoted_in_part},
    {"a_spec_of_ten_thousand_characters", a_spec_of_ten_thousand_characters},
    {NULL, NULL},
};

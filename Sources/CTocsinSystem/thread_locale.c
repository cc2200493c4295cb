#define _GNU_SOURCE
#include <locale.h>

#include "tocsin_thread_locale.h"

void *tocsin_thread_locale_new(const char *base, const char *messages, const char *time) {
    locale_t locale = newlocale(LC_ALL_MASK, base, (locale_t)0);
    if (!locale) locale = newlocale(LC_ALL_MASK, "C.UTF-8", (locale_t)0);
    if (!locale) locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!locale) return (void *)LC_GLOBAL_LOCALE;  /* out of memory: the process's */
    const struct { int mask; const char *name; } parts[] = {
        {LC_MESSAGES_MASK, messages}, {LC_TIME_MASK, time}, {LC_NUMERIC_MASK, "C"}};
    for (unsigned i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        /* On failure newlocale leaves the locale it was given as it was. */
        locale_t next = newlocale(parts[i].mask, parts[i].name, locale);
        if (next) locale = next;
    }
    return (void *)locale;
}

void tocsin_thread_locale_use(void *locale) {
    uselocale((locale_t)locale);
}

int tocsin_thread_locale_exists(const char *name) {
    locale_t locale = newlocale(LC_ALL_MASK, name, (locale_t)0);
    if (!locale) return 0;
    freelocale(locale);
    return 1;
}

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tocsin_intl.h"

#include <dlfcn.h>
#include <errno.h>
#include <libintl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DOMAIN "tocsin"

/* 0: not bound, 1: being bound, 2: bound. Atomics rather than pthread_once,
   which glibc 2.34 moved (the libraries keep their glibc floor at 2.17). */
static int bound;
static char folder[PATH_MAX];

/* True if `path` is a folder. */
static int is_folder(const char *path) {
    struct stat info;
    return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

static void find_folder(void) {
    const char *given = getenv("TOCSIN_LOCALEDIR");
    if (given && *given) {
        snprintf(folder, sizeof folder, "%s", given);
        return;
    }
    Dl_info info;
    char here[PATH_MAX];
    /* The object this function is in: libtocsin-notify.so, or the program.
       For the program dladdr gives argv[0] ("tocsin" when found through
       PATH): its file is /proc/self/exe. */
    int found = dladdr((void *)find_folder, &info) && info.dli_fname;
    const char *object = found && strcmp(info.dli_fname, program_invocation_name) != 0 ? info.dli_fname : "/proc/self/exe";
    /* (Without /proc, a chroot: argv[0], if it names a path.) */
    if (found && !realpath(object, here) && !(strchr(info.dli_fname, '/') && realpath(info.dli_fname, here))) found = 0;
    if (found) {
        char *slash = strrchr(here, '/');
        if (slash) *slash = 0;  /* its folder */
        static const char *const ups[] = {"/../share/locale", "/../../share/locale"};
        for (size_t i = 0; i < sizeof ups / sizeof *ups; i++) {
            char candidate[PATH_MAX + 32];
            snprintf(candidate, sizeof candidate, "%s%s", here, ups[i]);
            if (is_folder(candidate) && realpath(candidate, folder)) return;
        }
    }
    snprintf(folder, sizeof folder, "/usr/share/locale");
}

/* Binds the domain once, whichever thread comes first; the others wait. */
static void bind_once(void) {
    if (__atomic_load_n(&bound, __ATOMIC_ACQUIRE) == 2) return;
    int expected = 0;
    if (__atomic_compare_exchange_n(&bound, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        find_folder();
        bindtextdomain(DOMAIN, folder);
        bind_textdomain_codeset(DOMAIN, "UTF-8");
        __atomic_store_n(&bound, 2, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&bound, __ATOMIC_ACQUIRE) != 2) sched_yield();  /* a few system calls' wait */
}

const char *tocsin_locale_folder(void) {
    bind_once();
    return folder;
}

const char *tocsin_gettext(const char *msgid) {
    bind_once();
    return dgettext(DOMAIN, msgid);
}

const char *tocsin_ngettext(const char *one, const char *many, unsigned long count) {
    bind_once();
    return dngettext(DOMAIN, one, many, count);
}

/* Keeps the Embedded libraries' glibc floor at 2.17 (manylinux2014), so the
   wheel and the packages load on any glibc from 2.17 on, not only on the
   glibc they were built with. Built on glibc 2.34 or later, a library
   references the versions of that release: pthread_create@GLIBC_2.34 (the
   threads moved into libc; dlopen too), fstat@GLIBC_2.33, dladdr@GLIBC_2.34 (the translations' folder), arc4random_buf@GLIBC_2.36
   (the Embedded runtime's random numbers). scripts/build-embedded.sh links
   with --wrap for each, so every call goes through these functions, which
   call the oldest version of the same function (every one of them is still
   in today's glibc), or, for arc4random_buf, the getrandom system call.
   Not for sanitized builds: the sanitizers intercept these by name. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define BASE "GLIBC_2.2.5"
#define CONDATTR_CLOCK "GLIBC_2.3.3"
#define STAT_VERSION 1
#elif defined(__aarch64__)
#define BASE "GLIBC_2.17"
#define CONDATTR_CLOCK "GLIBC_2.17"
#define STAT_VERSION 0
#else
#error "glibc-floor.c: add this architecture's oldest symbol versions"
#endif

#define WRAPPER __attribute__((visibility("hidden")))
#define OLDEST(name, version) __asm__(".symver oldest_" #name ", " #name "@" version)

int oldest_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int oldest_pthread_join(pthread_t, void **);
int oldest_pthread_detach(pthread_t);
int oldest_pthread_sigmask(int, const sigset_t *, sigset_t *);
int oldest_pthread_mutexattr_init(pthread_mutexattr_t *);
int oldest_pthread_mutexattr_destroy(pthread_mutexattr_t *);
int oldest_pthread_mutexattr_settype(pthread_mutexattr_t *, int);
int oldest_pthread_condattr_setclock(pthread_condattr_t *, clockid_t);
int oldest___fxstat(int, int, struct stat *);
int oldest___xstat(int, const char *, struct stat *);
void *oldest_dlopen(const char *, int);
void *oldest_dlsym(void *, const char *);
int oldest_dladdr(const void *, Dl_info *);
OLDEST(pthread_create, BASE);
OLDEST(pthread_join, BASE);
OLDEST(pthread_detach, BASE);
OLDEST(pthread_sigmask, BASE);
OLDEST(pthread_mutexattr_init, BASE);
OLDEST(pthread_mutexattr_destroy, BASE);
OLDEST(pthread_mutexattr_settype, BASE);
OLDEST(pthread_condattr_setclock, CONDATTR_CLOCK);
OLDEST(__fxstat, BASE);
OLDEST(__xstat, BASE);
OLDEST(dlopen, BASE);
OLDEST(dlsym, BASE);
OLDEST(dladdr, BASE);

WRAPPER int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*run)(void *), void *argument) {
    return oldest_pthread_create(thread, attributes, run, argument);
}
WRAPPER int __wrap_pthread_join(pthread_t thread, void **result) { return oldest_pthread_join(thread, result); }
WRAPPER int __wrap_pthread_detach(pthread_t thread) { return oldest_pthread_detach(thread); }
WRAPPER int __wrap_pthread_sigmask(int how, const sigset_t *set, sigset_t *old) { return oldest_pthread_sigmask(how, set, old); }
WRAPPER int __wrap_pthread_mutexattr_init(pthread_mutexattr_t *attributes) { return oldest_pthread_mutexattr_init(attributes); }
WRAPPER int __wrap_pthread_mutexattr_destroy(pthread_mutexattr_t *attributes) { return oldest_pthread_mutexattr_destroy(attributes); }
WRAPPER int __wrap_pthread_mutexattr_settype(pthread_mutexattr_t *attributes, int type) {
    return oldest_pthread_mutexattr_settype(attributes, type);
}
WRAPPER int __wrap_pthread_condattr_setclock(pthread_condattr_t *attributes, clockid_t clock) {
    return oldest_pthread_condattr_setclock(attributes, clock);
}
/* Before glibc 2.33, stat and fstat were inlines over __xstat and __fxstat. */
WRAPPER int __wrap_fstat(int fd, struct stat *status) { return oldest___fxstat(STAT_VERSION, fd, status); }
WRAPPER int __wrap_stat(const char *path, struct stat *status) { return oldest___xstat(STAT_VERSION, path, status); }
WRAPPER void *__wrap_dlopen(const char *path, int flags) { return oldest_dlopen(path, flags); }
WRAPPER void *__wrap_dlsym(void *library, const char *name) { return oldest_dlsym(library, name); }
WRAPPER int __wrap_dladdr(const void *address, Dl_info *info) { return oldest_dladdr(address, info); }

/* The kernel's random bytes (Linux 3.17 on), waiting for the pool at boot
   as arc4random_buf does. */
WRAPPER void __wrap_arc4random_buf(void *buffer, size_t count) {
    unsigned char *bytes = buffer;
    while (count > 0) {
        long got = syscall(SYS_getrandom, bytes, count, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return; /* (ENOSYS before Linux 3.17; not reached on a supported kernel) */
        }
        bytes += got;
        count -= (size_t)got;
    }
}

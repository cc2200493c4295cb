/* The C library as the engine uses it, for the Embedded Swift build (see
   module.modulemap). Also what the Glibc overlay provides in Swift and a
   plain C module cannot: errno and open(2) with a mode (variadic in C),
   wrapped for embedded/LibcShims.swift. */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static inline int tocsin_libc_errno(void) { return errno; }
static inline void tocsin_libc_set_errno(int value) { errno = value; }
static inline int tocsin_libc_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }

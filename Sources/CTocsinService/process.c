#define _GNU_SOURCE
#include "tocsin_service_process.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void (*stop_function)(void *);
static void *stop_context;
static int grace;

static void ended_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
}

static void *wait_for_signals(void *unused) {
    (void)unused;
    sigset_t set;
    ended_signals(&set);
    int received = 0;
    while (sigwait(&set, &received) != 0) {
    }
    stop_function(stop_context);
    struct timespec left = {grace / 1000, (long)(grace % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
    /* Still here: the loop did not come back in time. Everything a call
       was answered for is in the journal already. */
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, received);
    signal(received, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(received);
    _exit(128 + received);
}

int tocsin_service_handle_signals(void (*stop)(void *context), void *context, int grace_ms) {
    stop_function = stop;
    stop_context = context;
    grace = grace_ms < 0 ? 0 : grace_ms;
    sigset_t set;
    ended_signals(&set);
    int failure = pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (failure) return failure;
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    failure = pthread_create(&thread, &attributes, wait_for_signals, NULL);
    pthread_attr_destroy(&attributes);
    if (failure) pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    return failure;
}

int tocsin_service_notify(const char *state) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || (path[0] != '/' && path[0] != '@') || !state) return -1;
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    size_t length = strlen(path);
    if (length >= sizeof address.sun_path) return -1;
    memcpy(address.sun_path, path, length);
    if (path[0] == '@') address.sun_path[0] = 0; /* abstract: no NUL counted */
    else length++;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    size_t size = strlen(state);
    ssize_t sent = sendto(fd, state, size, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&address,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length));
    close(fd);
    return sent == (ssize_t)size ? 0 : -1;
}

long long tocsin_service_watchdog_usec(void) {
    const char *pid = getenv("WATCHDOG_PID");
    if (pid && *pid && strtoll(pid, NULL, 10) != (long long)getpid()) return 0;
    const char *usec = getenv("WATCHDOG_USEC");
    if (!usec || !*usec) return 0;
    char *end = NULL;
    long long value = strtoll(usec, &end, 10);
    return end && *end == 0 && value > 0 ? value : 0;
}

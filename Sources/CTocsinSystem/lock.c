#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#endif
#include "tocsin_lock.h"

#include <errno.h>
#include <time.h>

void tocsin_lock_init(tocsin_lock *lock) {
    pthread_mutexattr_t mutex;
    pthread_mutexattr_init(&mutex);
    pthread_mutexattr_settype(&mutex, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&lock->mutex, &mutex);
    pthread_mutexattr_destroy(&mutex);
    pthread_condattr_t condition;
    pthread_condattr_init(&condition);
    pthread_condattr_setclock(&condition, CLOCK_MONOTONIC);  /* a wall-clock step never cuts a wait short */
    pthread_cond_init(&lock->condition, &condition);
    pthread_condattr_destroy(&condition);
}

void tocsin_lock_destroy(tocsin_lock *lock) {
    pthread_cond_destroy(&lock->condition);
    pthread_mutex_destroy(&lock->mutex);
}

int tocsin_lock_wait(tocsin_lock *lock, int64_t nanoseconds) {
    if (nanoseconds < 0) return pthread_cond_wait(&lock->condition, &lock->mutex) == 0 ? 0 : -1;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    int64_t carried = deadline.tv_nsec + nanoseconds % 1000000000;
    deadline.tv_sec += (time_t)(nanoseconds / 1000000000 + carried / 1000000000);
    deadline.tv_nsec = (long)(carried % 1000000000);
    return pthread_cond_timedwait(&lock->condition, &lock->mutex, &deadline) == ETIMEDOUT ? -1 : 0;
}

void tocsin_lock_broadcast(tocsin_lock *lock) { pthread_cond_broadcast(&lock->condition); }

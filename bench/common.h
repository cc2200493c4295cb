/* common.h: what the C benchmarks share: the clock, a comparison for qsort,
 * and the floor's binary min-heap of (deadline, index) with a position index
 * for cancel. Header-only (static functions): each benchmark is one C file.
 */
#ifndef TOCSIN_BENCH_COMMON_H
#define TOCSIN_BENCH_COMMON_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: every engine's lateness is measured against it. */
static inline int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* qsort comparison of int64_t values, ascending. */
static inline int compare_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Context switches of every thread of this process but `except` (a thread
 * id; the measuring thread), summed from /proc/self/task/N/status: at least
 * one per wake-up of a thread that sleeps until its next timer. Needs
 * <dirent.h>, <stdio.h> and <string.h>. */
static inline long process_switches(long except) {
    long total = 0;
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *entry;
    while (tasks && (entry = readdir(tasks))) {
        if (entry->d_name[0] == '.' || atol(entry->d_name) == except) continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/status", entry->d_name);
        FILE *status = fopen(path, "r");
        while (status && fgets(line, sizeof line, status))
            if (strstr(line, "ctxt_switches:")) total += atol(strchr(line, ':') + 1);
        if (status) fclose(status);
    }
    if (tasks) closedir(tasks);
    return total;
}

/* The floor: a binary min-heap of (deadline, index); position[index] is the
 * index's place in the heap, so removing any entry is O(log n). */
typedef struct { int64_t at; int index; } floor_entry;
typedef struct {
    floor_entry *entries;
    int *position;
    int count;
} floor_heap;

/* Room for indexes 0..capacity-1; 0 on allocation failure. */
static inline int floor_init(floor_heap *heap, int capacity) {
    heap->entries = malloc(sizeof *heap->entries * (size_t)capacity);
    heap->position = malloc(sizeof *heap->position * (size_t)capacity);
    heap->count = 0;
    return heap->entries && heap->position;
}

static inline void floor_swap(floor_heap *heap, int a, int b) {
    floor_entry t = heap->entries[a];
    heap->entries[a] = heap->entries[b];
    heap->entries[b] = t;
    heap->position[heap->entries[a].index] = a;
    heap->position[heap->entries[b].index] = b;
}

static inline void floor_up(floor_heap *heap, int i) {
    while (i && heap->entries[(i - 1) / 2].at > heap->entries[i].at) {
        floor_swap(heap, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static inline void floor_down(floor_heap *heap, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < heap->count && heap->entries[l].at < heap->entries[m].at) m = l;
        if (r < heap->count && heap->entries[r].at < heap->entries[m].at) m = r;
        if (m == i) return;
        floor_swap(heap, i, m);
        i = m;
    }
}

static inline void floor_push(floor_heap *heap, int index, int64_t at) {
    heap->entries[heap->count] = (floor_entry){at, index};
    heap->position[index] = heap->count;
    floor_up(heap, heap->count++);
}

/* Removes index's entry (it must be in the heap). */
static inline void floor_remove(floor_heap *heap, int index) {
    int i = heap->position[index];
    heap->count--;
    if (i != heap->count) {
        floor_swap(heap, i, heap->count);
        floor_up(heap, i);
        floor_down(heap, i);
    }
}

#endif

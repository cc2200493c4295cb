/* crash_save: a child process saves timers in a loop while the parent kills
 * it with SIGKILL at random moments; after every kill the file must load
 * (the old content or the new, never a mix). Prints the counts.
 *
 *   crash_save ROUNDS DIR
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tocsin.h"

/* An engine whose file differs with `generation`: labels and timer count. */
static void save_forever(const char *path, int generation) {
    tocsin_engine *engine;
    tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine);
    for (int i = 0; i < 20 + generation % 7; i++) {
        tocsin_timer timer;
        char label[64];
        snprintf(label, sizeof label, "generation %d timer %d", generation, i);
        tocsin_countdown_new(engine, 60 + i, &timer);
        tocsin_timer_set_label(engine, timer, label);
        tocsin_timer_start(engine, timer);
    }
    for (;;) tocsin_engine_save(engine, path);
}

static int leftover_temporaries(const char *dir) {
    int count = 0;
    DIR *folder = opendir(dir);
    for (struct dirent *entry; folder && (entry = readdir(folder));) {
        if (strstr(entry->d_name, "timers.json.")) {
            char file[512];
            snprintf(file, sizeof file, "%s/%s", dir, entry->d_name);
            unlink(file);
            count++;
        }
    }
    if (folder) closedir(folder);
    return count;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: crash_save ROUNDS DIR\n");
        return 2;
    }
    int rounds = atoi(argv[1]), loaded = 0, mid_write = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/timers.json", argv[2]);
    srand((unsigned)time(NULL));
    tocsin_engine *first;
    tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &first);
    tocsin_engine_save(first, path); /* a valid file before the first kill */
    tocsin_engine_free(first);
    for (int round = 0; round < rounds; round++) {
        pid_t child = fork();
        if (child == 0) save_forever(path, round);
        struct timespec pause = {0, (long)(rand() % 4000) * 1000L}; /* 0-4 ms */
        nanosleep(&pause, NULL);
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        mid_write += leftover_temporaries(argv[2]) > 0;
        tocsin_engine *engine;
        tocsin_engine_new(TOCSIN_ENGINE_MANUAL_CLOCK, &engine);
        size_t restored = 0;
        int status = tocsin_engine_load(engine, path, &restored);
        if (status == TOCSIN_OK && (restored == 0 || (restored >= 20 && restored <= 26))) {
            loaded++;
        } else {
            fprintf(stderr, "round %d: %s, %zu timers\n", round, tocsin_strerror(status), restored);
        }
        tocsin_engine_free(engine);
    }
    printf("crash test: %d SIGKILLs while saving, %d of them during a write; the file loaded after %d\n", rounds,
           mid_write, loaded);
    printf("%d passed, %d failed\n", loaded == rounds, loaded != rounds);
    return loaded == rounds ? 0 : 1;
}

/* crash_save: a child process saves timers in a loop while the parent kills
 * it with SIGKILL at random moments; after every kill the file must load
 * (the old content or the new, never a mix: every timer of one generation,
 * as many as that generation saves). Prints the counts and the seed of the
 * kill moments; fails unless some kills came during a write.
 *
 *   crash_save ROUNDS DIR [SEED]
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

/* NULL when the loaded timers are exactly one generation's (or none: the
 * empty file saved first); otherwise what is wrong. */
static const char *one_generation(tocsin_engine *engine, size_t restored) {
    static char why[160];
    if (restored == 0) return NULL;
    tocsin_timer timers[32];
    if (restored > 32 || tocsin_engine_timers(engine, timers, 32) != (int)restored) return "not the timers it said";
    int generation = -1;
    for (size_t i = 0; i < restored; i++) {
        char label[64];
        int g = -1, n = -1;
        tocsin_timer_label(engine, timers[i], label, sizeof label);
        if (sscanf(label, "generation %d timer %d", &g, &n) != 2 || n != (int)i) {
            snprintf(why, sizeof why, "timer %zu is labelled '%s'", i, label);
            return why;
        }
        if (generation == -1) generation = g;
        if (g != generation) {
            snprintf(why, sizeof why, "generations %d and %d mixed", generation, g);
            return why;
        }
    }
    if ((int)restored != 20 + generation % 7) {
        snprintf(why, sizeof why, "generation %d saved %d timers, %zu loaded", generation, 20 + generation % 7, restored);
        return why;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: crash_save ROUNDS DIR [SEED]\n");
        return 2;
    }
    int rounds = atoi(argv[1]), loaded = 0, mid_write = 0;
    unsigned seed = argc == 4 ? (unsigned)strtoul(argv[3], NULL, 10) : (unsigned)time(NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/timers.json", argv[2]);
    printf("crash test: seed %u (crash_save ROUNDS DIR %u repeats these kill moments)\n", seed, seed);
    srand(seed);
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
        const char *mix = status == TOCSIN_OK ? one_generation(engine, restored) : NULL;
        if (status == TOCSIN_OK && mix == NULL) {
            loaded++;
        } else {
            fprintf(stderr, "round %d (seed %u): %s, %zu timers%s%s\n", round, seed, tocsin_strerror(status), restored,
                    mix ? ": " : "", mix ? mix : "");
        }
        tocsin_engine_free(engine);
    }
    printf("crash test: %d SIGKILLs while saving, %d of them during a write; the file loaded after %d\n", rounds,
           mid_write, loaded);
    /* A kill before or after every write proves nothing about atomicity. */
    int enough_mid_write = mid_write >= rounds / 10;
    if (!enough_mid_write) fprintf(stderr, "only %d of %d kills came during a write (seed %u)\n", mid_write, rounds, seed);
    int passed = loaded == rounds && enough_mid_write;
    printf("%d passed, %d failed\n", passed, !passed);
    return passed ? 0 : 1;
}

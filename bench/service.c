/* The timer service under load, from a D-Bus client (GDBus, synchronous
   calls as a script would make them): N Add round trips (p50, p99), List
   and ListColumns of all N (the median of 5 each), then the service's RSS (and its growth since
   it started, per timer) and the CPU it uses over 5 s while the N timers
   wait. Compared in the same run with N `sleep` processes, the
   way a shell keeps N timers (`sleep 3600 &`): the time to start each and
   the memory they take (PSS, so shared pages count once).
   usage: service N        (run on a session bus that can start the service)
   Then, after the script has SIGKILLed that service (its journal holding
   the Adds since its last snapshot), the restart: the time from starting
   COMMAND to its first answer (a `ListColumns` of the ids, tried every
   millisecond), and that every timer is back; then it is stopped.
   usage: service restart N COMMAND...   */
#include <gio/gio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static GVariant *call(GDBusConnection *bus, const char *method, GVariant *arguments) {
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(bus, "dev.tocsin.Timers", "/dev/tocsin/Timers",
                                                  "dev.tocsin.Timers1", method, arguments, NULL,
                                                  G_DBUS_CALL_FLAGS_NONE, 60000, NULL, &error);
    if (!reply) {
        fprintf(stderr, "service: %s: %s\n", method, error->message);
        exit(1);
    }
    return reply;
}

/* The median of 5 round trips of `method`, in ms; `*count`: how many
   elements the reply's first value has (timers or columns' rows). */
static double median_call_ms(GDBusConnection *bus, const char *method, GVariant *arguments, size_t *count) {
    int64_t trips[5];
    if (arguments) g_variant_ref_sink(arguments);
    for (int k = 0; k < 5; k++) {
        int64_t began = now_ns();
        GVariant *reply = call(bus, method, arguments);
        trips[k] = now_ns() - began;
        GVariant *items = g_variant_get_child_value(reply, 0);
        *count = g_variant_n_children(items);
        if (g_variant_is_of_type(items, G_VARIANT_TYPE("a{sv}"))) { /* columns: the rows of "id" */
            GVariant *ids = g_variant_lookup_value(items, "id", G_VARIANT_TYPE("at"));
            *count = ids ? g_variant_n_children(ids) : 0;
            if (ids) g_variant_unref(ids);
        }
        g_variant_unref(items);
        g_variant_unref(reply);
    }
    if (arguments) g_variant_unref(arguments);
    qsort(trips, 5, sizeof *trips, compare_int64);
    return trips[2] / 1e6;
}

static long service_pid(GDBusConnection *bus) {
    GVariant *reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                                  g_variant_new("(s)", "dev.tocsin.Timers"), NULL,
                                                  G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
    guint32 pid = 0;
    if (reply) {
        g_variant_get(reply, "(u)", &pid);
        g_variant_unref(reply);
    }
    return pid;
}

/* A number from a /proc file's "Name:  value" line (kB for memory). */
static long proc_field(const char *path, const char *name) {
    FILE *file = fopen(path, "r");
    char line[256];
    long value = -1;
    while (file && fgets(line, sizeof line, file))
        if (!strncmp(line, name, strlen(name))) value = atol(line + strlen(name));
    if (file) fclose(file);
    return value;
}

/* utime + stime of a process, in seconds. */
static double cpu_seconds(long pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *file = fopen(path, "r");
    unsigned long utime = 0, stime = 0;
    if (file) {
        if (fscanf(file, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
            utime = stime = 0;
        fclose(file);
    }
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* Starts the service `command`, times its first answer, stops it. */
static int restart(int n, char **command) {
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    if (!bus) { fprintf(stderr, "service: no session bus\n"); return 1; }
    const char *ids_only[] = {"id", NULL};
    GVariant *arguments = g_variant_ref_sink(g_variant_new("(^as)", ids_only));
    int64_t began = now_ns();
    pid_t child = fork();
    if (child == 0) {
        execvp(command[0], command);
        _exit(127);
    }
    GVariant *reply = NULL;
    while (!reply && now_ns() - began < 60 * (int64_t)1000000000) {
        reply = g_dbus_connection_call_sync(bus, "dev.tocsin.Timers", "/dev/tocsin/Timers", "dev.tocsin.Timers1",
                                            "ListColumns", arguments, NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START, 60000,
                                            NULL, NULL);
        if (!reply) usleep(1000);  /* not on the bus yet */
    }
    int64_t answered = now_ns() - began;
    size_t count = 0;
    if (reply) {
        GVariant *columns = g_variant_get_child_value(reply, 0);
        GVariant *ids = g_variant_lookup_value(columns, "id", G_VARIANT_TYPE("at"));
        count = ids ? g_variant_n_children(ids) : 0;
        if (ids) g_variant_unref(ids);
        g_variant_unref(columns);
        g_variant_unref(reply);
    }
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    g_variant_unref(arguments);
    g_object_unref(bus);
    if (count != (size_t)n) { fprintf(stderr, "service: restarted with %zu timers of %d\n", count, n); return 1; }
    printf("engine=tocsin-service n=%d restart_ms=%.1f\n", n, answered / 1e6);
    return 0;
}

/* N calendar alarms with wake on, added one by one: the median Add round
   trip of the 11th-110th against the last 100 (issue 46: the engine kept
   its earliest wake timer by a scan per call, O(N) per Add).
   usage: service alarms N */
static int alarms(int n) {
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    if (!bus) { fprintf(stderr, "service: no session bus\n"); return 1; }
    int64_t *trips = malloc(sizeof(int64_t) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int64_t began = now_ns();
        GVariantBuilder options;
        g_variant_builder_init(&options, G_VARIANT_TYPE("a{sv}"));
        g_variant_builder_add(&options, "{sv}", "calendar", g_variant_new_string("Mon..Fri 07:00"));
        g_variant_builder_add(&options, "{sv}", "wake", g_variant_new_boolean(TRUE));
        g_variant_builder_add(&options, "{sv}", "alert", g_variant_new_boolean(FALSE));
        g_variant_builder_add(&options, "{sv}", "sound", g_variant_new_boolean(FALSE));
        g_variant_unref(call(bus, "Add", g_variant_new("(sda{sv})", "Alarm", 0.0, &options)));
        trips[i] = now_ns() - began;
    }
    qsort(trips + 10, 100, sizeof *trips, compare_int64);
    qsort(trips + n - 100, 100, sizeof *trips, compare_int64);
    printf("engine=tocsin-service-alarms n=%d add_early_p50_us=%.0f add_last_p50_us=%.0f\n", n, trips[10 + 50] / 1e3,
           trips[n - 50] / 1e3);
    free(trips);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "restart")) return restart(atoi(argv[2]), argv + 3);
    if (argc == 3 && !strcmp(argv[1], "alarms")) return alarms(atoi(argv[2]));
    if (argc != 2) { fprintf(stderr, "usage: service N | service alarms N | service restart N COMMAND...\n"); return 2; }
    int n = atoi(argv[1]);
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
    if (!bus) { fprintf(stderr, "service: no session bus\n"); return 1; }

    long pid = service_pid(bus);
    char status[64];
    snprintf(status, sizeof status, "/proc/%ld/status", pid);
    long rss0_kb = proc_field(status, "VmRSS:");
    int64_t *trips = malloc(sizeof(int64_t) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int64_t began = now_ns();
        GVariantBuilder options;
        g_variant_builder_init(&options, G_VARIANT_TYPE("a{sv}"));
        g_variant_builder_add(&options, "{sv}", "alert", g_variant_new_boolean(FALSE));
        g_variant_builder_add(&options, "{sv}", "sound", g_variant_new_boolean(FALSE));
        g_variant_unref(call(bus, "Add", g_variant_new("(sda{sv})", "Bench", 3600.0 + i * 0.001, &options)));
        trips[i] = now_ns() - began;
    }
    /* List and ListColumns (every column): the median of 5 round trips
       each, the reply taken apart as a client would (to its arrays). */
    size_t count = 0, counted = 0;
    double list_ms = median_call_ms(bus, "List", NULL, &count);
    const char *every_column[] = {NULL};
    double columns_ms = median_call_ms(bus, "ListColumns", g_variant_new("(^as)", every_column), &counted);
    if (counted != count) { fprintf(stderr, "service: List has %zu timers, ListColumns %zu\n", count, counted); return 1; }

    double cpu_before = cpu_seconds(pid);
    sleep(5);
    double cpu_used = cpu_seconds(pid) - cpu_before;
    long rss_kb = proc_field(status, "VmRSS:");
    qsort(trips, (size_t)n, sizeof *trips, compare_int64);
    printf("engine=tocsin-service n=%d add_p50_us=%.0f add_p99_us=%.0f list_ms=%.1f columns_ms=%.1f listed=%zu rss_kb=%ld "
           "rss0_kb=%ld bytes_per_timer=%.0f cpu_5s_ms=%.0f\n",
           n, trips[n / 2] / 1e3, trips[(size_t)(n * 0.99)] / 1e3, list_ms, columns_ms, count, rss_kb, rss0_kb,
           (rss_kb - rss0_kb) * 1024.0 / n, cpu_used * 1e3);

    /* The shell's way: N sleep processes. */
    pid_t *children = malloc(sizeof(pid_t) * (size_t)n);
    for (int i = 0; i < n; i++) {
        int64_t began = now_ns();
        children[i] = fork();
        if (children[i] == 0) {
            execlp("sleep", "sleep", "3600", (char *)NULL);
            _exit(127);
        }
        trips[i] = now_ns() - began;
    }
    sleep(1);
    long pss_kb = 0;
    for (int i = 0; i < n; i++) {
        char rollup[64];
        snprintf(rollup, sizeof rollup, "/proc/%d/smaps_rollup", children[i]);
        long pss = proc_field(rollup, "Pss:");
        if (pss > 0) pss_kb += pss;
    }
    for (int i = 0; i < n; i++) kill(children[i], SIGKILL);
    for (int i = 0; i < n; i++) waitpid(children[i], NULL, 0);
    qsort(trips, (size_t)n, sizeof *trips, compare_int64);
    printf("engine=sleep-processes n=%d add_p50_us=%.0f add_p99_us=%.0f pss_kb=%ld\n", n, trips[n / 2] / 1e3,
           trips[(size_t)(n * 0.99)] / 1e3, pss_kb);
    free(children);
    free(trips);
    g_object_unref(bus);
    return 0;
}

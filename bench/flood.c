/* One client floods the timer service while another lists its timers
   (issue 48's fairness measure). The flooder sends N `Add`s at once on its
   own connection (pipelined: all sent before the first reply is read) and
   counts the replies; meanwhile the lister, on another connection, calls
   `ListColumns(["id"])` every 50 ms and times each round trip, until the
   flooder's last reply. Prints one line:
     adds=N answered=A refused=R seconds=S adds_per_s=X
     list_calls=C list_p50_ms list_p99_ms list_max_ms list_lag_max
     seen_after_written rss_before_kb rss_after_kb
   (refused: answered with an error, such as LimitReached; list_lag_max:
   the most Adds that the service ran while a ListColumns waited, which
   does not depend on the machine's speed: the timers in its reply less the
   Adds already answered when it was sent; seen_after_written: the timers
   in the reply to the first ListColumns sent once every Add was written to
   the bus, N or more if it waited behind them all; rss: the service's VmRSS before
   the flood and after the last reply).
   usage: flood N       (on a session bus where the service runs) */
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define SERVICE "dev.tocsin.Timers", "/dev/tocsin/Timers", "dev.tocsin.Timers1"

static GDBusConnection *connect_private(void) {
    GError *error = NULL;
    gchar *address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, NULL, &error);
    GDBusConnection *bus = address ? g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
        NULL, NULL, &error) : NULL;
    if (!bus) {
        fprintf(stderr, "flood: %s\n", error->message);
        exit(1);
    }
    g_free(address);
    return bus;
}

static long service_rss_kb(GDBusConnection *bus) {
    GVariant *reply = g_dbus_connection_call_sync(
        bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
        g_variant_new("(s)", "dev.tocsin.Timers"), NULL, G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
    if (!reply) return -1;
    guint32 pid;
    g_variant_get(reply, "(u)", &pid);
    g_variant_unref(reply);
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%u/status", pid);
    FILE *status = fopen(path, "r");
    long kb = -1;
    while (status && fgets(line, sizeof line, status)) {
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    }
    if (status) fclose(status);
    return kb;
}

static struct {
    gint sent, answered, refused; /* atomic: read by the lister */
    int64_t began, ended;
    gint done;    /* atomic: the flooder's last reply is in */
    gint written; /* atomic: every Add is written to the bus */
} flood;

static void on_reply(GObject *source, GAsyncResult *result, gpointer unused) {
    (void)unused;
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
    if (reply) {
        g_atomic_int_inc(&flood.answered);
        g_variant_unref(reply);
    } else {
        if (flood.refused == 0) fprintf(stderr, "flood: first refusal: %s\n", error->message);
        g_atomic_int_inc(&flood.refused);
        g_error_free(error);
    }
}

static gpointer flooder(gpointer count) {
    GMainContext *context = g_main_context_new();
    g_main_context_push_thread_default(context);
    GDBusConnection *bus = connect_private();
    int n = GPOINTER_TO_INT(count);
    flood.began = now_ns();
    for (int k = 0; k < n; k++) {
        GVariantBuilder options;
        g_variant_builder_init(&options, G_VARIANT_TYPE("a{sv}"));
        g_variant_builder_add(&options, "{sv}", "alert", g_variant_new_boolean(FALSE));
        gchar *label = g_strdup_printf("flood %d", k);
        g_dbus_connection_call(bus, SERVICE, "Add", g_variant_new("(sda{sv})", label, 3600.0, &options), NULL,
                               G_DBUS_CALL_FLAGS_NONE, 600000, NULL, on_reply, NULL);
        g_free(label);
        flood.sent++;
    }
    g_dbus_connection_flush_sync(bus, NULL, NULL);
    g_atomic_int_set(&flood.written, 1);
    while (flood.answered + flood.refused < n) g_main_context_iteration(context, TRUE);
    flood.ended = now_ns();
    g_atomic_int_set(&flood.done, 1);
    g_object_unref(bus);
    g_main_context_pop_thread_default(context);
    g_main_context_unref(context);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2 || atoi(argv[1]) <= 0) {
        fprintf(stderr, "usage: flood N\n");
        return 2;
    }
    int n = atoi(argv[1]);
    GDBusConnection *lister = connect_private();
    long rss_before = service_rss_kb(lister);
    GThread *thread = g_thread_new("flooder", flooder, GINT_TO_POINTER(n));
    size_t capacity = 1 << 16, calls = 0;
    int64_t *trips = malloc(capacity * sizeof *trips);
    long lag_max = 0, seen_after_written = -1;
    while (!g_atomic_int_get(&flood.done) && calls < capacity) {
        int64_t began = now_ns();
        int answered_before = g_atomic_int_get(&flood.answered);
        int written = g_atomic_int_get(&flood.written);
        GError *error = NULL;
        GVariant *reply = g_dbus_connection_call_sync(lister, SERVICE, "ListColumns", g_variant_new_parsed("(['id'],)"),
                                                      NULL, G_DBUS_CALL_FLAGS_NONE, 600000, NULL, &error);
        if (!reply) {
            fprintf(stderr, "flood: ListColumns: %s\n", error->message);
            return 1;
        }
        trips[calls++] = now_ns() - began;
        GVariant *columns = g_variant_get_child_value(reply, 0);
        GVariant *ids = g_variant_lookup_value(columns, "id", G_VARIANT_TYPE("at"));
        long lag = (ids ? (long)g_variant_n_children(ids) : 0) - answered_before;
        g_variant_unref(columns);
        if (lag > lag_max) lag_max = lag;
        if (written && seen_after_written < 0) seen_after_written = ids ? (long)g_variant_n_children(ids) : 0;
        if (ids) g_variant_unref(ids);
        g_variant_unref(reply);
        g_usleep(50000);
    }
    g_thread_join(thread);
    long rss_after = service_rss_kb(lister);
    qsort(trips, calls, sizeof *trips, compare_int64);
    double seconds = (flood.ended - flood.began) / 1e9;
    printf("adds=%d answered=%d refused=%d seconds=%.2f adds_per_s=%.0f list_calls=%zu list_p50_ms=%.1f "
           "list_p99_ms=%.1f list_max_ms=%.1f list_lag_max=%ld seen_after_written=%ld rss_before_kb=%ld rss_after_kb=%ld\n",
           n, flood.answered, flood.refused, seconds, n / seconds, calls, calls ? trips[calls / 2] / 1e6 : 0.0,
           calls ? trips[(calls * 99 + 99) / 100 - 1] / 1e6 : 0.0, calls ? trips[calls - 1] / 1e6 : 0.0, lag_max, seen_after_written, rss_before, rss_after);
    g_object_unref(lister);
    free(trips);
    return 0;
}

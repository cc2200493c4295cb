/* libnotify, GLib and GIO for Swift, plus the few macros Swift cannot import. */
#include <gio/gio.h>
#include <libnotify/notify.h>

/* G_VARIANT_TYPE() is a cast macro. */
static inline const GVariantType *tocsin_variant_type(const char *type) {
    return (const GVariantType *)type;
}

/* g_signal_connect() is a macro, and G_CALLBACK casts the handler's type
   away; this takes the "closed" signal's real handler type instead. */
typedef void (*tocsin_closed_handler)(NotifyNotification *notification, gpointer data);

static inline gulong tocsin_connect_closed(NotifyNotification *notification,
                                           tocsin_closed_handler handler, gpointer data,
                                           GClosureNotify release) {
    return g_signal_connect_data(notification, "closed", G_CALLBACK(handler), data, release,
                                 (GConnectFlags)0);
}

/* The notification's id on the server (0 until shown), and setting it before
   the first show so that it replaces a notification shown by an earlier
   process (g_object_get/g_object_set are variadic). */
static inline guint32 tocsin_notification_id(NotifyNotification *notification) {
    gint id = 0;
    g_object_get(notification, "id", &id, NULL);
    return (guint32)id;
}

static inline void tocsin_notification_set_id(NotifyNotification *notification, guint32 id) {
    g_object_set(notification, "id", (gint)id, NULL);
}

/* Names the calling thread (top -H, /proc/PID/task/TID/comm). prctl, not
   pthread_setname_np: that one moved into libc at glibc 2.34 under a new
   symbol version, above the libraries' 2.17 floor. */
#include <sys/prctl.h>
static inline void tocsin_name_thread(const char *name) {
    (void)prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

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

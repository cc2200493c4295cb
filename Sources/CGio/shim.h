/* GDBus and the GLib main loop, for the timer service. */
#include <gio/gio.h>
#include <glib-unix.h>

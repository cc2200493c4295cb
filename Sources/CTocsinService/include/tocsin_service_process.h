/* The timer service's process: its signals handled on a thread of their own
   (so they work whatever its main loop is doing), and systemd's notify
   protocol (READY=1, WATCHDOG=1, STOPPING=1) spoken without libsystemd.
   For `tocsin service` only: not part of any library. */
#ifndef TOCSIN_SERVICE_PROCESS_H
#define TOCSIN_SERVICE_PROCESS_H

/* Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and the threads it
   starts from then on (call it before any other thread is started), and
   starts a thread that waits for them. At the first one it calls
   stop(context) on that thread (which must only ask the main loop to quit:
   g_main_loop_quit may be called from any thread); if the process is still
   there grace_ms later (its loop stuck, or its closing slow), the signal's
   default action ends it. Returns 0, or an errno. */
int tocsin_service_handle_signals(void (*stop)(void *context), void *context, int grace_ms);

/* Sends state ("READY=1", "WATCHDOG=1", "STOPPING=1") to the socket systemd
   names in $NOTIFY_SOCKET (a path, or @ for an abstract one), never
   blocking. Returns 0 if it was sent, -1 without a socket or if it failed. */
int tocsin_service_notify(const char *state);

/* The watchdog interval systemd asks of this process ($WATCHDOG_USEC, if
   $WATCHDOG_PID is unset or this process's), in microseconds; 0: none. */
long long tocsin_service_watchdog_usec(void);

#endif

/* What the tocsin command needs of the terminal and of signals that the
   Swift Glibc module does not import (variadic ioctl, signalfd). The
   engine's own system calls are in tocsin_system.h. */
#ifndef TOCSIN_TERMINAL_H
#define TOCSIN_TERMINAL_H

/* The terminal's width in columns, or 0. */
int tocsin_terminal_columns(int fd);

/* Blocks SIGINT, SIGTERM, SIGWINCH and SIGHUP in the calling thread and
   returns a signalfd that reads them, so an event loop can poll for them
   (-1 on failure). */
int tocsin_signal_fd(void);

/* The signal number of one read from tocsin_signal_fd, 0 if none. */
int tocsin_read_signal(int fd);

#endif

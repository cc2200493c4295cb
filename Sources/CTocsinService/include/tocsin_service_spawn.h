/* How the timer service starts a timer's command or a hook file (see
   ScriptRunner.swift): without waiting for it, in a process group of its
   own, in a folder of the service's choosing, with the event on standard
   input and its output into a pipe the service reads. For `tocsin service`
   only: not part of any library. */
#ifndef TOCSIN_SERVICE_SPAWN_H
#define TOCSIN_SERVICE_SPAWN_H

#include <sys/types.h>

/* Starts `path` with `argv` and `envp` (both NULL-terminated) in the folder
   `folder` (NULL: the service's), in a new process group led by the child,
   with default signal actions and an empty signal mask, `input` as its
   standard input and `output` as its standard output and error; no other
   descriptor of the service goes with it. Returns 0 and the child's pid in
   *pid, or an errno (the command could not start: ENOENT, EACCES, EAGAIN,
   ENOMEM...). Never waits for the child. */
int tocsin_service_spawn(const char *path, char *const argv[], char *const envp[], const char *folder,
                         int input, int output, pid_t *pid);

/* A file holding `length` bytes of `bytes`, read from its start: what a
   command reads on standard input (a memfd, so that writing it never waits
   for the command to read). Returns the descriptor (close-on-exec), or -1
   and errno. */
int tocsin_service_input_file(const void *bytes, size_t length);

/* A pipe for a command's output: fds[0] the service's end (non-blocking,
   close-on-exec), fds[1] the command's (blocking: a command that writes
   faster than the service reads waits, it is not told EAGAIN). Returns 0 or
   an errno. */
int tocsin_service_output_pipe(int fds[2]);

/* Clears the calling process's ambient capabilities (PR_CAP_AMBIENT_CLEAR_ALL),
   keeping its permitted and effective ones: systemd's
   AmbientCapabilities=CAP_WAKE_ALARM gives the service its wake timers,
   and the ambient set would pass them on to every command it runs. Call it
   before any thread starts. Returns 0 or an errno (EINVAL: a kernel
   without ambient capabilities, which then has none to pass on). */
int tocsin_service_drop_ambient_capabilities(void);

/* Sends `signal` to process group `group` (the command and what it
   started, unless they left the group). Returns 0 or an errno. */
int tocsin_service_signal_group(pid_t group, int signal);

#endif

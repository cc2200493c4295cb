#define _GNU_SOURCE
#include "tocsin_service_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

int tocsin_service_spawn(const char *path, char *const argv[], char *const envp[], const char *folder,
                         int input, int output, pid_t *pid) {
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_t actions;
    int failure = posix_spawnattr_init(&attributes);
    if (failure != 0) return failure;
    failure = posix_spawn_file_actions_init(&actions);
    if (failure != 0) {
        posix_spawnattr_destroy(&attributes);
        return failure;
    }
    /* Its own group, so that a time limit ends what it started too; every
       signal as a new program expects it (the service blocks SIGTERM & co.
       on its threads and may ignore SIGPIPE). */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if ((failure = posix_spawnattr_setflags(&attributes, flags)) == 0 &&
        (failure = posix_spawnattr_setpgroup(&attributes, 0)) == 0 &&
        (failure = posix_spawnattr_setsigmask(&attributes, &none)) == 0 &&
        (failure = posix_spawnattr_setsigdefault(&attributes, &all)) == 0 &&
        (failure = posix_spawn_file_actions_adddup2(&actions, input, 0)) == 0 &&
        (failure = posix_spawn_file_actions_adddup2(&actions, output, 1)) == 0 &&
        (failure = posix_spawn_file_actions_adddup2(&actions, output, 2)) == 0 &&
        (failure = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) == 0 &&
        (folder == NULL || (failure = posix_spawn_file_actions_addchdir_np(&actions, folder)) == 0)) {
        failure = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    }
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return failure;
}

int tocsin_service_input_file(const void *bytes, size_t length) {
    int fd = memfd_create("tocsin-event", MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t written = 0;
    while (written < length) {
        ssize_t count = write(fd, (const char *)bytes + written, length - written);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) {
            int failure = count < 0 ? errno : EIO;
            close(fd);
            errno = failure;
            return -1;
        }
        written += (size_t)count;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        int failure = errno;
        close(fd);
        errno = failure;
        return -1;
    }
    return fd;
}

int tocsin_service_output_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) return errno;
    int flags = fcntl(fds[0], F_GETFL);
    if (flags < 0 || fcntl(fds[0], F_SETFL, flags | O_NONBLOCK) != 0) {
        int failure = errno;
        close(fds[0]);
        close(fds[1]);
        return failure;
    }
    return 0;
}

int tocsin_service_signal_group(pid_t group, int signal) {
    if (group <= 1) return EINVAL; /* never every process, never init's group */
    return kill(-group, signal) == 0 ? 0 : errno;
}

int tocsin_service_drop_ambient_capabilities(void) {
    return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == 0 ? 0 : errno;
}

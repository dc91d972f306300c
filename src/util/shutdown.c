#include "util/shutdown.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <unistd.h>

#include "util/rc.h"

static atomic_bool requested;
static int wake_pipe[2] = {-1, -1};

int shutdown_init(void)
{
    if (wake_pipe[0] >= 0) {
        return RC_OK;
    }
    if (pipe(wake_pipe) != 0) {
        return RC_IO;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(wake_pipe[i], F_SETFL, fcntl(wake_pipe[i], F_GETFL) | O_NONBLOCK);
        fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
    }
    return RC_OK;
}

void shutdown_request(void)
{
    int saved = errno;
    atomic_store(&requested, true);
    if (wake_pipe[1] >= 0) {
        char c = 1;
        ssize_t n = write(wake_pipe[1], &c, 1);
        (void)n; /* a full pipe already holds a wake-up */
    }
    errno = saved;
}

bool shutdown_requested(void)
{
    return atomic_load(&requested);
}

bool shutdown_wait(int timeout_ms)
{
    while (!atomic_load(&requested)) {
        if (wake_pipe[0] < 0) {
            return false;
        }
        struct pollfd p = {.fd = wake_pipe[0], .events = POLLIN};
        int r = poll(&p, 1, timeout_ms);
        if (r == 0) {
            return atomic_load(&requested);
        }
        if (r > 0) {
            char drain[16];
            while (read(wake_pipe[0], drain, sizeof(drain)) > 0) {
            }
        }
    }
    return true;
}

void shutdown_clear(void)
{
    for (int i = 0; i < 2; i++) {
        if (wake_pipe[i] >= 0) {
            close(wake_pipe[i]);
            wake_pipe[i] = -1;
        }
    }
}

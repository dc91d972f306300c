/* Operator commands (command.h). posix_spawn and waitpid rather than system(): system()
 * ignores SIGINT and SIGQUIT for the whole process while a command runs, which would
 * swallow a shutdown request. */
#include "notify/command.h"

#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "util/log.h"
#include "util/xmalloc.h"

extern char **environ;

char *notify_command_format(const char *tmpl, const char *value)
{
    size_t vlen = strlen(value), n = 0;
    for (const char *p = strstr(tmpl, "%s"); p; p = strstr(p + 2, "%s")) {
        n++;
    }
    char *out = xmalloc(strlen(tmpl) + n * vlen + 1);
    char *o = out;
    for (const char *p = tmpl;;) {
        const char *hit = strstr(p, "%s");
        size_t len = hit ? (size_t)(hit - p) : strlen(p);
        memcpy(o, p, len);
        o += len;
        if (!hit) {
            break;
        }
        memcpy(o, value, vlen);
        o += vlen;
        p = hit + 2;
    }
    *o = 0;
    return out;
}

char *notify_sanitize(char *out, size_t out_len, const char *msg)
{
    static const char safe[] = " .,;-_/:?@()";
    size_t k = 0;
    for (const char *p = msg; *p && k + 1 < out_len; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 (c != 0 && strchr(safe, c) != NULL);
        if (ok) {
            out[k++] = c;
        }
    }
    if (out_len) {
        out[k] = 0;
    }
    return out;
}

int notify_command_run(const char *cmd)
{
    if (!cmd || !*cmd) {
        return 0;
    }
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    pid_t pid;
    int status = -1;
    int err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
    if (err == 0) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (status != 0) {
        LOG_WARN("runCommand error: system(%s) returned %d", cmd, status);
    }
    return status;
}

static void *spawn_main(void *arg)
{
    char *cmd = arg;
    notify_command_run(cmd);
    free(cmd);
    return NULL;
}

void notify_command_spawn(const char *cmd)
{
    if (!cmd || !*cmd) {
        return;
    }
    char *copy = xstrdup(cmd);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, spawn_main, copy) != 0) {
        LOG_WARN("runCommand error: cannot start a thread for %s", cmd);
        free(copy);
    }
    pthread_attr_destroy(&attr);
}

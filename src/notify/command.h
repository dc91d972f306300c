/* Shell commands the operator gives (-blocknotify, -alertnotify, -startupnotify,
 * -shutdownnotify): run through /bin/sh -c as Bitcoin Core's runCommand runs them, with
 * "%s" replaced by a value. A command never runs on a thread that holds a lock: the callers
 * hand it to a thread of its own (notify_command_spawn), so a slow script cannot hold up
 * validation. */
#ifndef BITNODE_NOTIFY_COMMAND_H
#define BITNODE_NOTIFY_COMMAND_H

#include <stddef.h>

/** Returns tmpl with every "%s" replaced by value (caller frees). */
char *notify_command_format(const char *tmpl, const char *value);

/** Copies msg into out (size out_len, NUL-terminated) keeping only the characters Core's
 *  SanitizeString keeps by default (letters, digits and " .,;-_/:?@()"), so that an alert's
 *  text cannot break out of the single quotes -alertnotify puts around it. Returns out. */
char *notify_sanitize(char *out, size_t out_len, const char *msg);

/** Runs cmd with /bin/sh -c and waits for it; a failure to start it or a non-zero exit is
 *  logged as Core logs it ("runCommand error: system(<cmd>) returned <n>"). Returns the exit
 *  status as system() would, or -1 when it could not be started. An empty cmd does
 *  nothing. */
int notify_command_run(const char *cmd);

/** Runs cmd as notify_command_run does on a detached thread of its own and returns at once
 *  (Core's std::thread(runCommand, cmd).detach()). Takes a copy of cmd. */
void notify_command_spawn(const char *cmd);

#endif

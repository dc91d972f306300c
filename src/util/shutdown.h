/* The process-wide shutdown request (Core's StartShutdown / ShutdownRequested).
 *
 * Anyone may ask for a clean shutdown: a signal handler (SIGTERM/SIGINT), the `stop` RPC, or
 * a fatal error deep in a worker. The main thread waits for the request and then runs the
 * shutdown steps in reverse order of start-up. Long loops (import, reindex) poll
 * shutdown_requested() and return early.
 */
#ifndef BITNODE_UTIL_SHUTDOWN_H
#define BITNODE_UTIL_SHUTDOWN_H

#include <stdbool.h>

/** Creates the wake-up pipe. Call once, early in main(). Returns 0 or RC_IO. */
int shutdown_init(void);
/** Asks for shutdown. Async-signal-safe (sets a flag and writes one byte to a pipe). */
void shutdown_request(void);
/** Returns true once shutdown_request() has been called. Any thread. */
bool shutdown_requested(void);
/** Blocks until shutdown is requested, or until timeout_ms passes (timeout_ms < 0: forever).
 *  Returns true if shutdown was requested. */
bool shutdown_wait(int timeout_ms);
/** Closes the pipe (end of main()). */
void shutdown_clear(void);

#endif

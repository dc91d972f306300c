/* BIP324's v2 transport for one connection, as a state machine over bytes: no sockets. The
 * transport (net.c) hands it what arrived and writes what it gives back; it decides whether
 * a responder's peer speaks v1 (the first 16 bytes are the network magic and "version"),
 * does the key exchange, skips the peer's garbage up to its terminator, checks the version
 * packet, and turns packets into messages (BIP324's short message-type IDs, or 0 and 12
 * bytes of type) and messages into packets. Messages given before the handshake allows
 * sending wait inside, in order, and go when it does (or framed as v1 if the peer turns out
 * to speak v1).
 *
 * Receiving never needs the whole input at once: v2t_want says how many bytes the next
 * step can use, and a packet is decrypted only once all of it is there. The log lines are
 * Core's ("V2 transport error: ...", "start sending v2 handshake to peer=N").
 */
#ifndef BITNODE_NET_V2TRANSPORT_H
#define BITNODE_NET_V2TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct v2t;

/* What getpeerinfo's transport_protocol_type says. */
enum v2t_kind { V2T_DETECTING = 0, V2T_IS_V1 = 1, V2T_IS_V2 = 2 };

/* v2t_receive's results besides an error. */
enum { V2T_MORE = 0, V2T_MESSAGE = 1 };

/** A transport for the connection to peer peer_id (for the log) on the network of magic:
 *  initiating for one we opened (it sends its key and garbage first: v2t_start), else a
 *  responder that waits to see whether the peer speaks v1 or v2. A fresh random key and
 *  garbage (0 to 4095 bytes). */
struct v2t *v2t_new(int initiating, const uint8_t magic[4], int64_t peer_id);
/** Frees t (NULL: no-op); its keys are wiped. */
void v2t_free(struct v2t *t);

/** Initiator, once the connection is up: appends our key and garbage to out and logs
 *  "start sending v2 handshake". */
void v2t_start(struct v2t *t, struct buf *out);

/** How many bytes the next v2t_receive can use at most (at least 1). */
size_t v2t_want(const struct v2t *t);
/** Takes what it can of in (avail bytes, the front of what was received and not yet used):
 *  *used gets how many bytes were used (0 when more must arrive first). Bytes to send (our
 *  key and garbage, the garbage terminator and version packet, messages that waited) are
 *  appended to out. Returns V2T_MORE, V2T_MESSAGE (v2t_message gives it, valid until the
 *  next call), or RC_INVALID with Core's reason in err (the connection is over). Once
 *  v2t_is_v1 says so the bytes belong to the v1 framing and must not be given here. */
int v2t_receive(struct v2t *t, const uint8_t *in, size_t avail, size_t *used, struct buf *out,
                char *err, size_t err_len);
/** The message v2t_receive just decoded: its type (NUL-terminated), payload and length, and
 *  the bytes its packet took on the wire (what Core counts per message type). */
void v2t_message(const struct v2t *t, const char **command, const uint8_t **payload,
                 size_t *len, size_t *wire_len);

/** Queues (before the handshake allows it) or encrypts into out a message; v1-framed once
 *  the peer is known to speak v1. Returns the bytes it takes on the wire. */
size_t v2t_send(struct v2t *t, const char *command, const uint8_t *payload, size_t len,
                struct buf *out);

/** V2T_DETECTING until the peer's version packet checked out (V2T_IS_V2) or it spoke v1. */
enum v2t_kind v2t_kind(const struct v2t *t);
/** 1 once the peer was found to speak v1: the caller frames from here on. */
int v2t_is_v1(const struct v2t *t);
/** The session id (32 bytes) once v2t_kind is V2T_IS_V2, else NULL. */
const uint8_t *v2t_session_id(const struct v2t *t);
/** Core's ShouldReconnectV1: an initiator whose key went out (more than a v1 header: a v1
 *  peer hangs up on it) and that has received nothing. */
int v2t_should_retry_v1(const struct v2t *t);

/** The short message-type ID of command (1..37), or 0 when it has none. */
uint8_t v2t_short_id(const char *command);
/** The message type of short ID id, or NULL when the ID is not assigned. */
const char *v2t_short_id_type(uint8_t id);

#endif

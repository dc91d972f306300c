/* RPC authentication: the cookie file, -rpcuser/-rpcpassword, -rpcauth lines, and the HTTP
 * Basic header they are checked against. Every comparison of secrets is constant-time.
 *
 * -rpcauth lines have Bitcoin Core's format "<user>:<salt>$<hash>", where hash is the hex of
 * HMAC-SHA256(key = salt as text, message = password) (share/rpcauth/rpcauth.py there).
 */
#ifndef BITNODE_RPC_AUTH_H
#define BITNODE_RPC_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPC_COOKIE_USER "__cookie__"

struct rpc_auth;
struct locked_pool;

/** Creates an empty credential set (nothing is accepted until credentials are added). The
 *  passwords and -rpcauth hashes it is given are kept in pool (borrowed: it outlives au;
 *  NULL: on the heap). */
struct rpc_auth *rpc_auth_new(struct locked_pool *pool);
/** Frees au (NULL: no-op), wiping the secrets it holds. */
void rpc_auth_free(struct rpc_auth *au);
/** Accepts user:pass (the cookie, or -rpcuser/-rpcpassword). Both copied. */
void rpc_auth_add_plain(struct rpc_auth *au, const char *user, const char *pass);
/** Accepts an -rpcauth line. Returns 0, or RC_INVALID unless it is "user:salt$hash" (one ':'
 *  and one '$' after it, as Core checks; a hash that is not the lowercase hex of the HMAC
 *  never matches). */
int rpc_auth_add_rpcauth(struct rpc_auth *au, const char *line);

/** Adds an -rpcwhitelist value "<user>:<method>,<method> ..." (split on ',' and ' '; no ':'
 *  allows the user nothing). A user's second whitelist keeps only the methods both list. */
void rpc_auth_add_whitelist(struct rpc_auth *au, const char *value);
/** -rpcwhitelistdefault: on, a user without a whitelist may call nothing. */
void rpc_auth_set_whitelist_default(struct rpc_auth *au, bool on);
/** true when a whitelist or the default restricts some user (the server checks methods). */
bool rpc_auth_whitelist_active(const struct rpc_auth *au);
/** May user call method? 1 yes; 0 no, the method is not in the user's whitelist; -1 no, the
 *  user has none and the default allows nothing. */
int rpc_auth_may_call(const struct rpc_auth *au, const char *user, const char *method);
/** Checks an HTTP Authorization header value ("Basic <base64 of user:pass>").
 *  Returns true if it names accepted credentials; then *user_out (if not NULL) gets a copy
 *  of the user name (caller frees). header may be NULL (false). */
bool rpc_auth_check_header(const struct rpc_auth *au, const char *header, char **user_out);

/** Computes the -rpcauth hash: hex of HMAC-SHA256(key=salt, msg=pass) into hex65. */
void rpc_auth_hmac_hex(char hex65[65], const char *salt, const char *pass);
/** Compares two strings in time that depends only on their lengths (Core's
 *  TimingResistantEqual). Returns true if equal. */
bool rpc_auth_equal(const char *a, const char *b);

/** Decodes the base64 of an Authorization header (base64_decode, Core's DecodeBase64) into
 *  a new NUL-terminated string (caller frees); NULL if s is not base64 or its bytes hold a
 *  NUL (no user:pass does). */
char *rpc_base64_decode(const char *s);

/** Creates a fresh cookie "__cookie__:<64 hex digits>" and writes it to path with mode 0600
 *  (through a temporary file and a rename). *secret_out gets the password part (caller
 *  frees). Returns 0 or RC_IO with err filled. */
int rpc_cookie_generate(const char *path, char **secret_out, char *err, size_t err_len);
/** Reads the cookie file at path; *userpass_out gets "user:pass" without the newline
 *  (caller frees). Returns 0, RC_NOT_FOUND, or RC_IO/RC_INVALID with err filled. */
int rpc_cookie_read(const char *path, char **userpass_out, char *err, size_t err_len);

#endif

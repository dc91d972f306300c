/* JSON-RPC dispatch: the method table, request parsing (JSON-RPC 1.0 and 2.0, single and
 * batch, positional and named parameters), argument checks, the warm-up gate, and the HTTP
 * status of each reply, all as Bitcoin Core does them (src/httprpc.cpp, src/rpc/server.cpp,
 * src/rpc/request.cpp there). No HTTP here: server.c hands over a body and sends back what
 * rpc_handle_body() returns, so this file is unit-testable.
 *
 * Each method group (control.c now; blockchain, rawtransaction, net, mining later) has a
 * static table of struct rpc_method and a registration function that bitnoded calls before
 * the server starts. The table is read-only once the server runs.
 */
#ifndef BITNODE_RPC_JSONRPC_H
#define BITNODE_RPC_JSONRPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum rpc_arg_type {
    RPC_ARG_STR,     /* "string" */
    RPC_ARG_STR_HEX, /* "string" of hex digits */
    RPC_ARG_NUM,     /* number (integer or real) */
    RPC_ARG_BOOL,    /* true / false */
    RPC_ARG_AMOUNT,  /* number or numeric string, in BTC */
    RPC_ARG_OBJ,     /* JSON object */
    RPC_ARG_ARR,     /* JSON array */
    RPC_ARG_ANY,     /* any JSON value */
};

struct rpc_arg {
    const char *name; /* as used for named parameters */
    enum rpc_arg_type type;
    bool optional;
    const char *default_text; /* shown as "default=..." in help, or NULL */
    const char *help;
    bool hidden; /* accepted, but left out of help (e.g. stop's "wait") */
};

#define RPC_JSON_V1 1 /* legacy 1.0 / 1.1: errors travel as HTTP errors too */
#define RPC_JSON_V2 2 /* 2.0: errors in HTTP 200 replies; notifications get no reply */

struct rpc_request {
    const char *method;    /* borrowed from the request JSON */
    json_t *params;        /* array, positional; named parameters already mapped (owned) */
    json_t *id;            /* borrowed, NULL if the request had no id */
    int json_version;      /* RPC_JSON_V1 or RPC_JSON_V2 */
    const char *auth_user; /* borrowed: who authenticated */
    const char *uri;       /* borrowed: "/" or "/wallet/..." */
    int err_code;          /* set through rpc_error() */
    char *err_msg;         /* owned, set through rpc_error() */
};

/** A method handler. Returns the result (a new reference; ownership passes to the
 *  dispatcher), or NULL after calling rpc_error(). Runs on an RPC worker thread; the
 *  params have been checked against the method's struct rpc_arg list (count and types). */
typedef json_t *(*rpc_handler_fn)(struct rpc_request *req);

enum rpc_method_flags {
    RPC_METHOD_HIDDEN = 1u << 0,    /* left out of the help overview (tests, debugging) */
    RPC_METHOD_IN_WARMUP = 1u << 1, /* allowed while the node is starting (stop, help) */
};

struct rpc_method {
    const char *category; /* "Control", "Blockchain", ... (help overview sections) */
    const char *name;
    rpc_handler_fn handler;
    const struct rpc_arg *args;
    size_t n_args;
    const char *description; /* paragraphs after the signature line */
    const char *result;      /* the "Result:" section, or NULL for none */
    const char *examples;    /* the "Examples:" section, or NULL to generate one */
    unsigned flags;          /* enum rpc_method_flags */
};

/** Adds n methods (borrowed; static storage) to the table. Call before the server starts.
 *  A duplicate name is a bug (aborts). */
void rpc_table_register(const struct rpc_method *methods, size_t n);
/** Empties the table (tests, shutdown). */
void rpc_table_clear(void);
/** Returns the method called name, or NULL. */
const struct rpc_method *rpc_table_find(const char *name);

/** Returns the full help text of m (signature, description, arguments, result, examples).
 *  Caller frees. */
char *rpc_method_help(const struct rpc_method *m);
/** Returns the overview: "== Category ==" sections with each visible method's signature,
 *  sorted by category then name. Caller frees. */
char *rpc_help_overview(void);

/** Records an error for req and returns NULL (for "return rpc_error(...);" in handlers). */
json_t *rpc_error(struct rpc_request *req, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Returns parameter i (borrowed), or NULL if it was not given or is JSON null. */
json_t *rpc_param(const struct rpc_request *req, size_t i);

/* Warm-up: until rpc_warmup_finished(), every method without RPC_METHOD_IN_WARMUP answers
 * error -28 with the current status text. Starts in warm-up ("Loading..."). Thread-safe. */
void rpc_warmup_set(const char *status);
void rpc_warmup_finished(void);
/** Returns true while warming up; the status is copied into status (may be NULL). */
bool rpc_warmup_get(char *status, size_t status_len);

/** Returns the commands now running as Core's getrpcinfo "active_commands" array:
 *  [{"method": ..., "duration": <microseconds>}]. New reference. */
json_t *rpc_active_commands(void);

struct rpc_reply {
    int http_status; /* 200, 204, 400, 404, 500 */
    char *body;      /* owned JSON text ending in "\n"; NULL when there is no body (204) */
};

/** Handles one HTTP request body: parses it, runs the request(s), and fills reply.
 *  auth_user and uri are borrowed for the call. Thread-safe. */
void rpc_handle_body(const char *body, size_t len, const char *auth_user, const char *uri,
                     struct rpc_reply *reply);
/** Frees the reply's body. */
void rpc_reply_clear(struct rpc_reply *reply);

#endif

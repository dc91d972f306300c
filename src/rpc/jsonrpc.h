/* JSON-RPC dispatch: declared methods, request parsing (JSON-RPC 1.0 and 2.0, single and
 * batch, positional and named parameters), argument checks and conversion, the warm-up gate,
 * generated help, and the HTTP status of each reply, all as Bitcoin Core does them
 * (src/httprpc.cpp, src/rpc/server.cpp, src/rpc/request.cpp and src/rpc/util.cpp there). No
 * HTTP here: server.c hands over a body and sends back what rpc_handle_body() returns, so
 * this file is unit-testable.
 *
 * Every method declares once, in a static struct rpc_method, its arguments (names, types,
 * defaults, how the dispatcher converts them) and its results (the tree of typed fields
 * Core's help prints). The dispatcher checks the argument count and every type, fills in
 * declared defaults and converts integers, verbosities and hashes before the handler runs,
 * answering Core's errors; `help METHOD` is rendered from the same declaration in Core's
 * layout, and tests check every result against its declaration (rpc_result_check).
 *
 * All mutable state lives in a struct rpc_context that bitnoded owns (no process globals):
 * the method table, the warm-up status, the running commands, and what the method groups
 * answer from (see rpc/context.h).
 */
#ifndef BITNODE_RPC_JSONRPC_H
#define BITNODE_RPC_JSONRPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- declarations -------------------------------------------------------------------- */

/* Core's RPCArg::Type. */
enum rpc_arg_type {
    RPC_ARG_OBJ,
    RPC_ARG_ARR,
    RPC_ARG_STR,
    RPC_ARG_NUM,
    RPC_ARG_BOOL,
    RPC_ARG_OBJ_NAMED_PARAMS, /* an options object whose keys may also be given by name */
    RPC_ARG_OBJ_USER_KEYS,    /* an object whose keys the caller chooses */
    RPC_ARG_AMOUNT,           /* a number or a numeric string, in BTC */
    RPC_ARG_STR_HEX,          /* a string of hex digits */
    RPC_ARG_RANGE,            /* a number or [number, number] */
};

/* Core's RPCArg fallback: Optional::NO, Optional::OMITTED, Default, DefaultHint. */
enum rpc_arg_fallback {
    RPC_ARG_REQUIRED = 0,
    RPC_ARG_OMITTED,      /* optional, no default shown */
    RPC_ARG_DEFAULT,      /* optional; default_value is the JSON text the handler gets */
    RPC_ARG_DEFAULT_HINT, /* optional; default_value is text for help only */
};

/* What the dispatcher makes of a checked argument before the handler runs. */
enum rpc_arg_conv {
    RPC_CONV_NONE = 0,
    RPC_CONV_INT,       /* Core's getInt<int>: an integer in int32 range, else -1 "JSON integer
                           out of range" (a fraction or exponent is out of range too) */
    RPC_CONV_INT64,     /* getInt<int64_t> */
    RPC_CONV_UINT32,    /* getInt<uint32_t> */
    RPC_CONV_VERBOSITY, /* Core's ParseVerbosity(allow_bool): true = 1, false = 0, else INT */
    RPC_CONV_HASH,      /* Core's ParseHashV(v, conv_name): 64 hex digits, else -8 */
};

struct rpc_arg {
    const char *names; /* "verbosity|verbose": the first is the positional name, all are
                          accepted as named parameters */
    enum rpc_arg_type type;
    enum rpc_arg_fallback fallback;
    const char *default_value; /* see fallback */
    const char *description;
    const struct rpc_arg *inner; /* members of an OBJ / elements of an ARR, for help */
    size_t n_inner;
    const char *oneline;     /* overrides the signature word (Core's oneline_description) */
    const char *type_str[2]; /* overrides the type words: [0] in a key-value pair, [1] in the
                                description (Core's type_str); both or neither */
    bool skip_type_check;    /* the handler or the conversion checks the type */
    bool hidden;             /* left out of help, with every argument after it */
    bool placeholder;        /* kept only for compatibility (Core's RPCArgOptions::placeholder:
                                getopenrpcinfo's "x-bitcoin-placeholder") */
    enum rpc_arg_conv conv;
    const char *conv_name; /* RPC_CONV_HASH: the name in Core's messages ("blockhash") */
};

/* Core's RPCResult::Type. */
enum rpc_result_type {
    RPC_RES_OBJ,
    RPC_RES_ARR,
    RPC_RES_STR,
    RPC_RES_NUM,
    RPC_RES_BOOL,
    RPC_RES_NONE,       /* json null */
    RPC_RES_ANY,        /* not type-checked */
    RPC_RES_STR_AMOUNT, /* an amount: a number in JSON */
    RPC_RES_STR_HEX,
    RPC_RES_OBJ_DYN, /* keys are not literals: inner[0] describes every value */
    RPC_RES_ARR_FIXED,
    RPC_RES_NUM_TIME,
};

/* Core's HelpElision: how an entry prints in help (the result check ignores it). */
enum rpc_elision {
    RPC_ELIDE_NONE = 0,
    RPC_ELIDE_TEXT, /* prints "..." and elision_text in place of the entry */
    RPC_ELIDE_SKIP, /* prints nothing */
};

struct rpc_result {
    enum rpc_result_type type;
    const char *key; /* inside an object; "" elsewhere */
    bool optional;
    const char *description;
    const struct rpc_result *inner;
    size_t n_inner;
    const char *cond; /* top level: "for verbosity = 0" prints "Result (for verbosity = 0):" */
    bool skip_type_check;
    enum rpc_elision elision;
    const char *elision_text;
};

/* A static array's address and element count, for the inner / args / results pairs:
 *     .inner = RPC_LIST(struct rpc_result, {...}, {...}) */
#define RPC_LIST(type, ...)                                                                        \
    (const type[]){__VA_ARGS__}, sizeof((const type[]){__VA_ARGS__}) / sizeof(type)

/* Core's HelpExampleCli / HelpExampleRpc, as string literals: method and args are literals
 * ("getblockhash", "1000"). */
#define RPC_EXAMPLE_CLI(method, args) "> bitnode-cli " method " " args "\n"
#define RPC_EXAMPLE_RPC(method, args)                                                              \
    "> curl --user myusername --data-binary '{\"jsonrpc\": \"2.0\", \"id\": \"curltest\", "       \
    "\"method\": \"" method "\", \"params\": [" args "]}' -H 'content-type: application/json' "   \
    "http://127.0.0.1:8332/\n"
#define RPC_EXAMPLES(method, cli_args, rpc_args)                                                   \
    RPC_EXAMPLE_CLI(method, cli_args) RPC_EXAMPLE_RPC(method, rpc_args)

struct rpc_request;

/** A method handler. Returns the result (a new reference; ownership passes to the
 *  dispatcher), or NULL after calling rpc_error(). Runs on an RPC worker thread. Every
 *  argument has been checked against the method's declaration (count, types), declared
 *  defaults are filled in, and converted values are ready (rpc_arg_int, rpc_arg_hash). */
typedef json_t *(*rpc_handler_fn)(struct rpc_request *req);

enum rpc_method_flags {
    RPC_METHOD_HIDDEN = 1u << 0,    /* left out of the help overview (tests, debugging) */
    RPC_METHOD_IN_WARMUP = 1u << 1, /* allowed while the node is starting (stop, help) */
};

struct rpc_method {
    const char *category; /* "control", "blockchain", ... (help overview: "== Control ==") */
    const char *name;
    rpc_handler_fn handler;
    const char *description; /* paragraphs after the signature line */
    const struct rpc_arg *args;
    size_t n_args;
    const struct rpc_result *results; /* the alternatives; a result matches one of them */
    size_t n_results;
    const char *examples; /* the "Examples:" section's lines (Core's, with bitnode-cli for
                             bitcoin-cli), or NULL for none */
    unsigned flags;       /* enum rpc_method_flags */
};

/* ---- the context --------------------------------------------------------------------- */

struct rpc_context;
struct node_context;

/** A new context: an empty method table, in warm-up ("Starting up..."), no running commands,
 *  answering from node (borrowed: it outlives the context; its handles are set before
 *  warm-up ends). Free with rpc_context_free. */
struct rpc_context *rpc_context_new(struct node_context *node);
/** Frees ctx (NULL: no-op). The server using it must be stopped first. */
void rpc_context_free(struct rpc_context *ctx);

/** Adds n methods (borrowed; static storage) to the table. Call before the server starts.
 *  A duplicate name or an inconsistent declaration (a default that does not parse or does
 *  not match its type, a duplicate parameter name) is a bug (aborts). */
void rpc_register(struct rpc_context *ctx, const struct rpc_method *methods, size_t n);
/** Returns the method called name, or NULL. */
const struct rpc_method *rpc_find(const struct rpc_context *ctx, const char *name);
/** Calls fn for every registered method in registration order. */
void rpc_foreach(const struct rpc_context *ctx, void (*fn)(void *arg, const struct rpc_method *m),
                 void *arg);

/** Returns the full help text of m, as Core's RPCMethod::ToString: signature, description,
 *  Arguments, Result (one section per alternative) and Examples. Caller frees. */
char *rpc_method_help(const struct rpc_method *m);
/** Returns the overview: "== Category ==" sections with each visible method's signature,
 *  sorted by category then name. Caller frees. */
char *rpc_help_overview(const struct rpc_context *ctx);

/** Checks v against the declared results of m, as Core's -rpcdoccheck does.
 *  Returns 0 if it matches one alternative; else RC_INVALID with a description of the
 *  mismatches in why (truncated to why_len). */
int rpc_result_check(const struct rpc_method *m, const json_t *v, char *why, size_t why_len);
/** With on, every result is checked after its handler ran (rpc_result_check) and a mismatch
 *  is answered as an internal bug, as Core's -rpcdoccheck. Default off. */
void rpc_set_doccheck(struct rpc_context *ctx, bool on);

/* Warm-up: until rpc_warmup_finished(), every method without RPC_METHOD_IN_WARMUP answers
 * error -28 with the current status text. Thread-safe. */
void rpc_warmup_set(struct rpc_context *ctx, const char *status);
void rpc_warmup_finished(struct rpc_context *ctx);
/** Returns true while warming up; the status is copied into status (may be NULL). */
bool rpc_warmup_get(struct rpc_context *ctx, char *status, size_t status_len);

/** Returns the commands now running as Core's getrpcinfo "active_commands" array:
 *  [{"method": ..., "duration": <microseconds>}]. New reference. */
json_t *rpc_active_commands(struct rpc_context *ctx);

/* ---- requests ------------------------------------------------------------------------ */

#define RPC_JSON_V1 1 /* legacy 1.0 / 1.1: errors travel as HTTP errors too */
#define RPC_JSON_V2 2 /* 2.0: errors in HTTP 200 replies; notifications get no reply */

/* An argument after the dispatcher's conversion. */
struct rpc_value {
    bool given; /* not omitted and not null (a declared default counts as given) */
    int64_t i;  /* RPC_CONV_INT, INT64, UINT32, VERBOSITY */
    uint8_t hash32[32]; /* RPC_CONV_HASH, internal byte order */
};

#define RPC_MAX_ARGS 16

struct rpc_request {
    struct rpc_context *ctx;
    const char *method;    /* borrowed from the request JSON */
    json_t *params;        /* array, positional; named parameters already mapped (owned) */
    json_t *id;            /* borrowed, NULL if the request had no id (or was no object) */
    bool id_absent;        /* the request object had no "id": a 1.0 reply has none either */
    int json_version;      /* RPC_JSON_V1 or RPC_JSON_V2 */
    const char *auth_user; /* borrowed: who authenticated */
    const char *uri;       /* borrowed: "/" */
    struct rpc_value argv[RPC_MAX_ARGS];
    int err_code;  /* set through rpc_error() */
    char *err_msg; /* owned, set through rpc_error() */
};

/** Records an error for req and returns NULL (for "return rpc_error(...);" in handlers). */
json_t *rpc_error(struct rpc_request *req, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Returns parameter i (borrowed; its declared default if it was omitted), or NULL if it was
 *  not given or is JSON null. */
json_t *rpc_param(const struct rpc_request *req, size_t i);
/** The converted integer of parameter i (RPC_CONV_INT / INT64 / UINT32 / VERBOSITY); the caller
 *  checks rpc_param or argv[i].given first when the parameter may be omitted. */
int64_t rpc_arg_int(const struct rpc_request *req, size_t i);
/** The converted integer of parameter i, or dflt when it was omitted (for a default that
 *  help shows as a hint, RPC_ARG_DEFAULT_HINT). */
int64_t rpc_arg_int_or(const struct rpc_request *req, size_t i, int64_t dflt);
/** The hash of parameter i (RPC_CONV_HASH), or NULL if it was not given. */
const uint8_t *rpc_arg_hash(const struct rpc_request *req, size_t i);

/** Core's getInt<int64_t> of a value a handler reads itself (lo..hi: the C type's range):
 *  0 with *out; -1 after rpc_error (-3 not a number, -1 "JSON integer out of range"). */
int rpc_value_int(struct rpc_request *req, const json_t *v, int64_t lo, int64_t hi, int64_t *out);
/** Core's ParseHashV(v, name): 0 with out32 (internal byte order); -1 after rpc_error. */
int rpc_value_hash(struct rpc_request *req, const json_t *v, const char *name, uint8_t out32[32]);

/* One expected member of an object for rpc_check_obj: its name and JSON type (a jansson
 * JSON_* value; JSON_TRUE stands for either boolean, JSON_INTEGER for any number). */
struct rpc_obj_key {
    const char *name;
    int type;
};
/** Core's RPCTypeCheckObj on o: keys (n of them, in Core's order: sorted by name) each of
 *  the type given ("Missing NAME" when absent and !allow_null, else "JSON value of type T
 *  for field NAME is not of expected type U"), then with strict no other member ("Unexpected
 *  key NAME"), each error -3. 0, or -1 after rpc_error. */
int rpc_check_obj(struct rpc_request *req, const json_t *o, const struct rpc_obj_key *keys,
                  size_t n, int allow_null, int strict);

/** Runs method `name` with params (an array; ownership passes; NULL: none) as a call from
 *  inside the node, the way Core's REST runs getblockchaininfo and getdeploymentinfo
 *  (RPCMethod::HandleRequest): the declared argument checks, defaults and conversions, the
 *  handler, and with -rpcdoccheck the result check; no warm-up gate, and not listed by
 *  getrpcinfo. Returns the result (a new reference; ownership passes), or NULL with
 *  *err_code and *err_msg (the caller frees it) set. Thread-safe. */
json_t *rpc_call_method(struct rpc_context *ctx, const char *name, json_t *params,
                        int *err_code, char **err_msg);

struct rpc_reply {
    int http_status; /* 200, 204, 400, 404, 500 */
    char *body;      /* owned JSON text ending in "\n"; NULL when there is no body (204) */
};

/** Handles one HTTP request body: parses it, runs the request(s), and fills reply.
 *  auth_user and uri are borrowed for the call. Thread-safe. */
void rpc_handle_body(struct rpc_context *ctx, const char *body, size_t len, const char *auth_user,
                     const char *uri, struct rpc_reply *reply);
/** Frees the reply's body. */
void rpc_reply_clear(struct rpc_reply *reply);

#endif

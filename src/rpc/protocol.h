/* JSON-RPC error codes and HTTP status codes, with Bitcoin Core's numbers (src/rpc/protocol.h
 * there), so that clients that branch on them keep working. */
#ifndef BITNODE_RPC_PROTOCOL_H
#define BITNODE_RPC_PROTOCOL_H

/* RPC_ prefix: libevent's http.h defines HTTP_OK and friends as macros. */
enum rpc_http_status {
    RPC_HTTP_OK = 200,
    RPC_HTTP_NO_CONTENT = 204,
    RPC_HTTP_BAD_REQUEST = 400,
    RPC_HTTP_UNAUTHORIZED = 401,
    RPC_HTTP_FORBIDDEN = 403,
    RPC_HTTP_NOT_FOUND = 404,
    RPC_HTTP_BAD_METHOD = 405,
    RPC_HTTP_PAYLOAD_TOO_LARGE = 413,
    RPC_HTTP_INTERNAL_SERVER_ERROR = 500,
    RPC_HTTP_SERVICE_UNAVAILABLE = 503,
};

enum rpc_error_code {
    /* Standard JSON-RPC 2.0 errors. */
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
    RPC_PARSE_ERROR = -32700,

    /* General application errors. */
    RPC_MISC_ERROR = -1,               /* std::exception thrown in command handling */
    RPC_TYPE_ERROR = -3,               /* unexpected type was passed as parameter */
    RPC_INVALID_ADDRESS_OR_KEY = -5,   /* invalid address or key */
    RPC_OUT_OF_MEMORY = -7,            /* ran out of memory during operation */
    RPC_INVALID_PARAMETER = -8,        /* invalid, missing or duplicate parameter */
    RPC_DATABASE_ERROR = -20,          /* database error */
    RPC_DESERIALIZATION_ERROR = -22,   /* error parsing or validating structure in raw format */
    RPC_VERIFY_ERROR = -25,            /* general error during transaction or block submission */
    RPC_VERIFY_REJECTED = -26,         /* transaction or block was rejected by network rules */
    RPC_VERIFY_ALREADY_IN_UTXO_SET = -27, /* transaction already in the UTXO set */
    RPC_VERIFY_ALREADY_IN_CHAIN = RPC_VERIFY_ALREADY_IN_UTXO_SET, /* Core's older name */
    RPC_IN_WARMUP = -28,               /* client still warming up */
    RPC_METHOD_DEPRECATED = -32,       /* RPC method is deprecated */
    RPC_LIMIT_EXCEEDED = -37,          /* a bounded resource is currently at capacity */

    /* P2P client errors. */
    RPC_CLIENT_NOT_CONNECTED = -9,
    RPC_CLIENT_IN_INITIAL_DOWNLOAD = -10,
    RPC_CLIENT_NODE_ALREADY_ADDED = -23,
    RPC_CLIENT_NODE_NOT_ADDED = -24,
    RPC_CLIENT_NODE_NOT_CONNECTED = -29,
    RPC_CLIENT_INVALID_IP_OR_SUBNET = -30,
    RPC_CLIENT_P2P_DISABLED = -31,
    RPC_CLIENT_MEMPOOL_DISABLED = -33,
    RPC_CLIENT_NODE_CAPACITY_REACHED = -34,
};

/* Request bodies above this are refused with 413 (Core's MAX_SIZE). */
#define RPC_MAX_BODY_BYTES (32u * 1024 * 1024)
/* Request headers above this are refused (Core: MAX_HEADERS_SIZE). */
#define RPC_MAX_HEADER_BYTES 8192

#endif

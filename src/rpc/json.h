/* JSON output the way Bitcoin Core writes it (UniValue), on top of jansson's tree.
 *
 * jansson parses and holds values; this writer prints them: compact ("{"a":1}") or indented
 * ("{\n  \"a\": 1\n}", empty containers as "[\n]" like UniValue), reals with 16 significant
 * digits, and amounts exactly: an amount is stored as a marked string (see rpc_json_amount)
 * and printed as a bare number with 8 decimals ("0.10000000"), never through a double.
 */
#ifndef BITNODE_RPC_JSON_H
#define BITNODE_RPC_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"

#define COIN 100000000LL
#define MAX_MONEY (21000000LL * COIN)

/** Returns a new value that prints as the amount value_sat in BTC with 8 decimals
 *  ("-0.00000001", "21000000.00000000"). Ownership passes to the caller. */
json_t *rpc_json_amount(int64_t value_sat);
/** Returns true if v was made by rpc_json_amount(). */
bool rpc_json_is_amount(const json_t *v);

/** Appends v to out: compact if indent == 0, else pretty with indent spaces per level.
 *  No trailing newline. */
void rpc_json_write(struct buf *out, const json_t *v, int indent);
/** Returns v written as a new NUL-terminated string (caller frees). */
char *rpc_json_dumps(const json_t *v, int indent);

/** Parses text (len bytes) as one JSON value of any type (scalars too), rejecting trailing
 *  garbage. Returns a new reference, or NULL if it is not valid JSON. */
json_t *rpc_json_parse(const char *text, size_t len);

/** Like rpc_json_parse, but every number with a fraction or exponent, or with more than 18
 *  digits, keeps the exact text it had (as an amount-tagged value that rpc_json_write prints
 *  verbatim and rpc_json_type_name calls a number), so that a client re-printing a reply
 *  shows "14911.13258250", not what a double makes of it, and the server echoes "1000.0" as
 *  Core does. Returns NULL on malformed JSON, and for a string starting with "\u0000" (which
 *  could pass for such a number). */
json_t *rpc_json_parse_exact(const char *text, size_t len);
/* rpc_json_parse_exact keeps a key repeated in one object (UniValue keeps every one; jansson
 * would keep the last): the repeat is stored as the key, this mark and its count, and
 * json_object_get finds the first, as Core's find_value. */
#define RPC_JSON_DUP_MARK 0x1f
/** The length of the key a member was given in the request (without a repeat's mark). */
size_t rpc_json_key_len(const char *key);
/** Reads an amount in BTC from a number or a numeric string, as Core's AmountFromValue:
 *  at most 8 decimals and 0 <= amount <= MAX_MONEY.
 *  Returns 0 with *value_sat set; RC_INVALID with *err pointing to a static message
 *  ("Amount is not a number or string", "Invalid amount", "Amount out of range"). */
int rpc_json_amount_parse(const json_t *v, int64_t *value_sat, const char **err);

/** True for a JSON number: an integer, a real, or a number kept as its text
 *  (rpc_json_parse_exact, rpc_json_amount). */
bool rpc_json_is_number(const json_t *v);
/** Core's get_real: the value of a number (an integer, a real, or a number kept as its
 *  text) as a double. Returns 0 with *out; RC_INVALID if v is not a number; RC_TOO_LARGE if
 *  its text is outside a double's range (Core's "JSON double out of range"). */
int rpc_json_real(const json_t *v, double *out);
/** UniValue's uvTypeName of a jansson type (a JSON_* value; both booleans are "bool", both
 *  numbers "number"). */
const char *rpc_json_kind_name(int type);
/** The type name Core uses in messages: "null", "bool", "number" (also for a number kept as
 *  its text), "string", "array", "object". */
const char *rpc_json_type_name(const json_t *v);

#endif

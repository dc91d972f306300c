/* Scripts as byte strings: opcodes, the push decoder, CScriptNum, and the script templates
 * consensus recognises (P2SH, witness programs). Pure functions: no I/O, no allocation except
 * where a function says it appends to a struct buf.
 *
 * Semantics follow Bitcoin Core's script/script.{h,cpp} exactly, including the way a
 * truncated push advances the read position (it matters to FindAndDelete and to the
 * legacy signature hash's code-separator stripping).
 */
#ifndef BITNODE_SCRIPT_SCRIPT_H
#define BITNODE_SCRIPT_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Consensus limits. */
#define MAX_SCRIPT_ELEMENT_SIZE 520
#define MAX_OPS_PER_SCRIPT 201
#define MAX_PUBKEYS_PER_MULTISIG 20
#define MAX_SCRIPT_SIZE 10000
#define MAX_STACK_SIZE 1000
/* nLockTime below this is a block height, at or above a UNIX time. */

/* BIP68/BIP112 sequence bits. */
#define SEQUENCE_LOCKTIME_DISABLE_FLAG (1u << 31)
#define SEQUENCE_LOCKTIME_TYPE_FLAG (1u << 22)
#define SEQUENCE_LOCKTIME_MASK 0x0000ffffu

/* Witness programs (BIP141, BIP341). */
#define WITNESS_V0_SCRIPTHASH_SIZE 32
#define WITNESS_V0_KEYHASH_SIZE 20
#define WITNESS_V1_TAPROOT_SIZE 32

/* Taproot (BIP341/342). */
#define TAPROOT_LEAF_MASK 0xfe
#define TAPROOT_LEAF_TAPSCRIPT 0xc0
#define TAPROOT_CONTROL_BASE_SIZE 33
#define TAPROOT_CONTROL_NODE_SIZE 32
#define TAPROOT_CONTROL_MAX_NODE_COUNT 128
#define TAPROOT_CONTROL_MAX_SIZE                                                                   \
    (TAPROOT_CONTROL_BASE_SIZE + TAPROOT_CONTROL_NODE_SIZE * TAPROOT_CONTROL_MAX_NODE_COUNT)
#define ANNEX_TAG 0x50
#define VALIDATION_WEIGHT_PER_SIGOP_PASSED 50
#define VALIDATION_WEIGHT_OFFSET 50

enum opcode {
    /* push value */
    OP_0 = 0x00,
    OP_FALSE = OP_0,
    OP_PUSHDATA1 = 0x4c,
    OP_PUSHDATA2 = 0x4d,
    OP_PUSHDATA4 = 0x4e,
    OP_1NEGATE = 0x4f,
    OP_RESERVED = 0x50,
    OP_1 = 0x51,
    OP_TRUE = OP_1,
    OP_2 = 0x52,
    OP_3 = 0x53,
    OP_4 = 0x54,
    OP_5 = 0x55,
    OP_6 = 0x56,
    OP_7 = 0x57,
    OP_8 = 0x58,
    OP_9 = 0x59,
    OP_10 = 0x5a,
    OP_11 = 0x5b,
    OP_12 = 0x5c,
    OP_13 = 0x5d,
    OP_14 = 0x5e,
    OP_15 = 0x5f,
    OP_16 = 0x60,

    /* control */
    OP_NOP = 0x61,
    OP_VER = 0x62,
    OP_IF = 0x63,
    OP_NOTIF = 0x64,
    OP_VERIF = 0x65,
    OP_VERNOTIF = 0x66,
    OP_ELSE = 0x67,
    OP_ENDIF = 0x68,
    OP_VERIFY = 0x69,
    OP_RETURN = 0x6a,

    /* stack ops */
    OP_TOALTSTACK = 0x6b,
    OP_FROMALTSTACK = 0x6c,
    OP_2DROP = 0x6d,
    OP_2DUP = 0x6e,
    OP_3DUP = 0x6f,
    OP_2OVER = 0x70,
    OP_2ROT = 0x71,
    OP_2SWAP = 0x72,
    OP_IFDUP = 0x73,
    OP_DEPTH = 0x74,
    OP_DROP = 0x75,
    OP_DUP = 0x76,
    OP_NIP = 0x77,
    OP_OVER = 0x78,
    OP_PICK = 0x79,
    OP_ROLL = 0x7a,
    OP_ROT = 0x7b,
    OP_SWAP = 0x7c,
    OP_TUCK = 0x7d,

    /* splice ops */
    OP_CAT = 0x7e,
    OP_SUBSTR = 0x7f,
    OP_LEFT = 0x80,
    OP_RIGHT = 0x81,
    OP_SIZE = 0x82,

    /* bit logic */
    OP_INVERT = 0x83,
    OP_AND = 0x84,
    OP_OR = 0x85,
    OP_XOR = 0x86,
    OP_EQUAL = 0x87,
    OP_EQUALVERIFY = 0x88,
    OP_RESERVED1 = 0x89,
    OP_RESERVED2 = 0x8a,

    /* numeric */
    OP_1ADD = 0x8b,
    OP_1SUB = 0x8c,
    OP_2MUL = 0x8d,
    OP_2DIV = 0x8e,
    OP_NEGATE = 0x8f,
    OP_ABS = 0x90,
    OP_NOT = 0x91,
    OP_0NOTEQUAL = 0x92,
    OP_ADD = 0x93,
    OP_SUB = 0x94,
    OP_MUL = 0x95,
    OP_DIV = 0x96,
    OP_MOD = 0x97,
    OP_LSHIFT = 0x98,
    OP_RSHIFT = 0x99,
    OP_BOOLAND = 0x9a,
    OP_BOOLOR = 0x9b,
    OP_NUMEQUAL = 0x9c,
    OP_NUMEQUALVERIFY = 0x9d,
    OP_NUMNOTEQUAL = 0x9e,
    OP_LESSTHAN = 0x9f,
    OP_GREATERTHAN = 0xa0,
    OP_LESSTHANOREQUAL = 0xa1,
    OP_GREATERTHANOREQUAL = 0xa2,
    OP_MIN = 0xa3,
    OP_MAX = 0xa4,
    OP_WITHIN = 0xa5,

    /* crypto */
    OP_RIPEMD160 = 0xa6,
    OP_SHA1 = 0xa7,
    OP_SHA256 = 0xa8,
    OP_HASH160 = 0xa9,
    OP_HASH256 = 0xaa,
    OP_CODESEPARATOR = 0xab,
    OP_CHECKSIG = 0xac,
    OP_CHECKSIGVERIFY = 0xad,
    OP_CHECKMULTISIG = 0xae,
    OP_CHECKMULTISIGVERIFY = 0xaf,

    /* expansion */
    OP_NOP1 = 0xb0,
    OP_CHECKLOCKTIMEVERIFY = 0xb1,
    OP_NOP2 = OP_CHECKLOCKTIMEVERIFY,
    OP_CHECKSEQUENCEVERIFY = 0xb2,
    OP_NOP3 = OP_CHECKSEQUENCEVERIFY,
    OP_NOP4 = 0xb3,
    OP_NOP5 = 0xb4,
    OP_NOP6 = 0xb5,
    OP_NOP7 = 0xb6,
    OP_NOP8 = 0xb7,
    OP_NOP9 = 0xb8,
    OP_NOP10 = 0xb9,

    /* BIP342 */
    OP_CHECKSIGADD = 0xba,

    OP_INVALIDOPCODE = 0xff,
};

/* The highest opcode that has a name (Core's MAX_OPCODE). */
#define MAX_OPCODE OP_CHECKSIGADD

/** Reads the operation at *pc in script[0..len) (Core's GetScriptOp).
 *
 *  Returns: 1 with *opcode set, *pc advanced past it, and (for a push) *data and *data_len
 *           pointing into script; 0 at the end of the script or on a truncated push, with
 *           *opcode = OP_INVALIDOPCODE, *data_len = 0, and *pc advanced exactly as far as
 *           Core advances it (past the opcode and any length bytes it could read).
 *  Out:     data, data_len may be NULL.
 */
int script_get_op(const uint8_t *script, size_t len, size_t *pc, uint8_t *opcode,
                  const uint8_t **data, size_t *data_len);

/** Value of OP_0 / OP_1..OP_16 (0..16). */
static inline int script_decode_op_n(uint8_t op)
{
    return op == OP_0 ? 0 : (int)op - (int)(OP_1 - 1);
}
/** OP_0 / OP_1..OP_16 for n in 0..16. */
static inline uint8_t script_encode_op_n(int n)
{
    return n == 0 ? (uint8_t)OP_0 : (uint8_t)(OP_1 + n - 1);
}

/** Core's GetOpName: "OP_DUP", "0", "-1", ...; "OP_UNKNOWN" for an unnamed opcode.
 *  Returns a static string. */
const char *script_op_name(uint8_t opcode);

/** 1 if every operation is a push (opcode <= OP_16) and the script decodes. */
int script_is_push_only(const uint8_t *script, size_t len);
/** 1 for the P2SH template HASH160 <20 bytes> EQUAL. */
int script_is_p2sh(const uint8_t *script, size_t len);
/** 1 if the script is a witness program: a version opcode then one 2..40-byte push and
 *  nothing else; *version and the borrowed *program and *program_len are set. */
int script_is_witness_program(const uint8_t *script, size_t len, int *version,
                              const uint8_t **program, size_t *program_len);
/** 1 for the pay-to-anchor witness program (version 1, program 4e73). */
int script_is_p2a(int version, const uint8_t *program, size_t program_len);
/** 1 if the script is provably unspendable (starts with OP_RETURN or is too large). */
int script_is_unspendable(const uint8_t *script, size_t len);
/** Core's CScript::HasValidOps: every operation decodes, is a known opcode and pushes at
 *  most MAX_SCRIPT_ELEMENT_SIZE bytes. */
int script_has_valid_ops(const uint8_t *script, size_t len);

/** Core's CheckMinimalPush for a push opcode (<= OP_PUSHDATA4) and the data it pushed. */
int script_check_minimal_push(const uint8_t *data, size_t len, uint8_t opcode);

/** Appends the canonical push of data (Core's CScript << vector: 0x00 for empty, a direct
 *  length byte below 76, else PUSHDATA1/2/4). Never uses OP_1..OP_16. */
void script_push_data(struct buf *out, const uint8_t *data, size_t len);
/** Appends CScript << int64: OP_1NEGATE, OP_0, OP_1..OP_16 or a CScriptNum push. */
void script_push_int(struct buf *out, int64_t n);

/* CScriptNum: little-endian sign-magnitude numbers on the stack. */
#define SCRIPTNUM_DEFAULT_MAX_SIZE 4

/** Decodes a CScriptNum (Core's CScriptNum(vch, fRequireMinimal, nMaxNumSize)).
 *  Returns: 1 and *out; 0 if longer than max_size or (require_minimal) not minimally
 *           encoded, which the interpreter reports as SCRIPTNUM. */
int scriptnum_decode(int64_t *out, const uint8_t *p, size_t n, int require_minimal,
                     size_t max_size);
/** Encodes v (|v| < 2^63) minimally into out (at most 9 bytes); returns the length. */
size_t scriptnum_encode(uint8_t out[9], int64_t v);
/** Core's CastToBool: false for all-zero bytes or negative zero. */
int script_cast_to_bool(const uint8_t *p, size_t n);

/** Legacy sigop count (Core's GetSigOpCount): CHECKSIG(VERIFY) count 1; CHECKMULTISIG(VERIFY)
 *  counts the preceding OP_1..OP_16 when accurate, else 20. Stops at the first bad op. */
unsigned script_sigop_count(const uint8_t *script, size_t len, int accurate);

#endif

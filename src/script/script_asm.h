/* Script text forms: Core's test "asm" notation (ParseScript: opcode names with or without
 * OP_, decimal numbers, 0x raw bytes, 'string' pushes) and Core's ScriptToAsmStr output
 * (decodescript's "asm" field). */
#ifndef BITNODE_SCRIPT_SCRIPT_ASM_H
#define BITNODE_SCRIPT_SCRIPT_ASM_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/** Parses Core's test notation into script bytes appended to out.
 *  Returns 0, or RC_INVALID with a message in err (err_len bytes, may be 0) naming the
 *  offending word. */
int script_asm_parse(struct buf *out, const char *text, char *err, size_t err_len);

/** Appends Core's ScriptToAsmStr(script) (no sighash decoding) and a NUL to out; out->len
 *  excludes the NUL. */
void script_asm_format(struct buf *out, const uint8_t *script, size_t len);

/** Looks up an opcode by name ("DUP" or "OP_DUP", as Core's mapOpNames: OP_RESERVED and
 *  OP_NOP..OP_CHECKSIGADD). Returns 1 with *op, else 0. */
int script_asm_opcode(const char *name, size_t name_len, uint8_t *op);

#endif

/* The option tables of the programs, each beside its program (src/bitnoded-options.c,
 * src/bitnode-cli-options.c), for util/args.c to parse with. */
#ifndef BITNODE_OPTIONS_H
#define BITNODE_OPTIONS_H

#include <stddef.h>

#include "util/args.h"

extern const struct arg_def bitnoded_options[];
extern const size_t bitnoded_options_len;
extern const struct arg_def bitnode_cli_options[];
extern const size_t bitnode_cli_options_len;

#endif

/* A regtest node for the fuzz targets that need one around the code under test: a
 * chainstate at its genesis block in the scratch directory, its validation thread and a
 * mempool, made on first use and kept for the process (what inputs do to it, such as
 * headers accepted, stays for later inputs, as in a running node). Included by the target
 * files (static functions); include fuzz_util.h first. */
#ifndef BITNODE_TEST_FUZZ_FUZZ_NODE_H
#define BITNODE_TEST_FUZZ_FUZZ_NODE_H

#include <stdio.h>
#include <stdlib.h>

#include "consensus/params.h"
#include "mempool/mempool.h"
#include "validation/chainstate.h"
#include "validation/validator.h"

static struct chainstate *fuzz_cs;
static struct validator *fuzz_val;
static struct mempool *fuzz_mp;

static inline void fuzz_node_up(void)
{
    if (fuzz_val) {
        return;
    }
    char dir[600], err[512] = "";
    snprintf(dir, sizeof(dir), "%s/node", fuzz_tmpdir());
    struct chainstate_options o = {
        .params = chain_params_get("regtest"),
        .datadir = dir,
        .dbcache_bytes = 4u << 20,
        .par = 1,
        .max_tip_age = 2000000000,
    };
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
    if (system(cmd) != 0 || chainstate_open(&fuzz_cs, &o, err, sizeof(err)) != 0 ||
        validator_new(&fuzz_val, fuzz_cs, 0, NULL, NULL) != 0) {
        fprintf(stderr, "cannot make the regtest node: %s\n", err);
        exit(1);
    }
    struct validator_job act = {.work = VALIDATOR_ACTIVATE};
    validator_run(fuzz_val, &act);
    struct mempool_options mo;
    mempool_options_default(&mo);
    mo.persist = 1;
    fuzz_mp = mempool_new(&mo);
}

#endif

/* bitnode-util: offline tools over the library, for people and for tests.
 *
 *   bitnode-util [-chain=NAME] parse-blocks FILE...
 *
 * parse-blocks reads block files in the -loadblock format, parses every block, checks that it
 * re-serializes byte for byte, that its merkle root matches (and is not the CVE-2012-2459
 * mutation), and that every header links to a block seen in the files (in any order); it
 * prints the counts and the tip (the highest block; ties go to the first seen). A node's own
 * blkNNNNN.dat beside an xor.dat is read through that XOR key (Core's -blocksxor).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockstore/blockfile.h"
#include "blockstore/blockstore.h"
#include "consensus/merkle.h"
#include "consensus/pow.h"
#include "consensus/params.h"
#include "primitives/block.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static const char *progname = "bitnode-util";

/* bitnode-util-script.c */
int util_cmd_decodescript(int argc, char **argv, const struct chain_params *chain);
int util_cmd_verify_tx(int argc, char **argv);
int util_cmd_verify_block(int argc, char **argv, const struct chain_params *chain);
/* bitnode-util-genchain.c */
int util_cmd_genchain(int argc, char **argv);
/* bitnode-util-chainstate.c */
int util_cmd_chainstate(int argc, char **argv, const struct chain_params *chain, int load);
/* bitnode-util-headers.c */
int util_cmd_check_headers(int argc, char **argv, const struct chain_params *chain);

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: %s [options] <command> [args]\n"
            "\n"
            "Commands:\n"
            "  parse-blocks FILE...   parse block files (-loadblock format): check every block\n"
            "                         re-serializes, its merkle root, its proof of work, and\n"
            "                         that every header links to its parent; print block and\n"
            "                         transaction counts and the tip (a node's blkNNNNN.dat\n"
            "                         is read with the XOR key of the xor.dat beside it)\n"
            "  check-headers FILE [--height H]\n"
            "                         check a file of 80-byte headers (the first at height H,\n"
            "                         default 0): links, proof of work, the chain's retarget\n"
            "                         rules, median time past; print the tip and chain work\n"
            "  decodescript HEX       decode a script as the decodescript RPC does\n"
            "  verify-tx TXHEX PREVOUTS_JSON FLAGS\n"
            "                         verify every input of a transaction against the outputs\n"
            "                         it spends (FLAGS: P2SH,WITNESS,... or consensus/standard)\n"
            "  verify-block BLOCK.bin SPENT.json[.xz] --height H\n"
            "                         verify every input script of a block with the flags\n"
            "                         Core applies at height H; print inputs checked / failed\n"
            "  genchain --blocks N --txs M --seed S --out FILE [--mix TYPES] [--expect J]\n"
            "                         [--verify]  write a deterministic regtest chain\n"
            "  dump-chainstate -datadir=DIR -out=FILE [-regtest|-chain=NAME]\n"
            "                         write every store of a stopped node's datadir (block\n"
            "                         index, chainstate, indexes) to FILE, with this build's\n"
            "                         backend (doc/files.md, \"Chainstate dump\")\n"
            "  load-chainstate -datadir=DIR -in=FILE [-blocksfrom=BLOCKSDIR] [-hardlink]\n"
            "                         build those stores in a new datadir with this build's\n"
            "                         backend, beside the source's blk/rev files (copied, or\n"
            "                         hard-linked with -hardlink, from BLOCKSDIR)\n"
            "\n"
            "Options:\n"
            "  -chain=NAME            main, test, testnet4, signet or regtest (default: taken\n"
            "                         from the first file's magic)\n"
            "  -regtest, -testnet, -testnet4, -signet   shorthands for -chain\n"
            "  -help                  this text\n",
            progname);
}

/* ---- a map from block hash to its entry, for header linking ------------------------- */

struct entry {
    uint8_t hash[32];
    uint8_t prev[32];
    int64_t height; /* -1 until linked */
    size_t ntx;
};

struct block_map {
    struct entry *v;
    size_t n, cap;
    size_t *slots; /* index + 1, 0 = empty */
    size_t nslots;
};

static size_t slot_of(const struct block_map *m, const uint8_t hash[32])
{
    size_t i = (size_t)rd_u64le(hash) & (m->nslots - 1);
    while (m->slots[i] && memcmp(m->v[m->slots[i] - 1].hash, hash, 32) != 0) {
        i = (i + 1) & (m->nslots - 1);
    }
    return i;
}

static struct entry *map_find(const struct block_map *m, const uint8_t hash[32])
{
    if (!m->nslots) {
        return NULL;
    }
    size_t s = m->slots[slot_of(m, hash)];
    return s ? &m->v[s - 1] : NULL;
}

static void map_rehash(struct block_map *m, size_t nslots)
{
    free(m->slots);
    m->nslots = nslots;
    m->slots = xcalloc(nslots, sizeof(size_t));
    for (size_t i = 0; i < m->n; i++) {
        m->slots[slot_of(m, m->v[i].hash)] = i + 1;
    }
}

/* Returns 0, or 1 if the hash was already present. */
static int map_add(struct block_map *m, const struct entry *e)
{
    if (map_find(m, e->hash)) {
        return 1;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 1024;
        m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
    }
    m->v[m->n++] = *e;
    if (2 * m->n > m->nslots) {
        map_rehash(m, m->nslots ? 2 * m->nslots : 4096);
    } else {
        m->slots[slot_of(m, e->hash)] = m->n;
    }
    return 0;
}

static void map_free(struct block_map *m)
{
    free(m->v);
    free(m->slots);
}

/* ---- parse-blocks -------------------------------------------------------------------- */

static const struct chain_params *chain_by_magic(const uint8_t magic[4])
{
    static const char *const names[] = {"main", "test", "testnet4", "signet", "regtest"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const struct chain_params *p = chain_params_get(names[i]);
        if (p && memcmp(p->magic, magic, 4) == 0) {
            return p;
        }
    }
    return NULL;
}

/* One record of a block file: it parses, re-serializes byte for byte, meets its proof of
 * work, and its merkle root matches (not mutated); it goes into map (a second copy is
 * named). Returns the problems found; *ntx gets its transactions when it is new. */
static uint64_t check_record(const struct chain_params *chain, const char *path,
                             const struct blockfile_record *rec, struct block_map *map,
                             struct buf *ser, uint64_t *ntx)
{
    struct block b;
    struct entry e;
    uint8_t root[32];
    int mutated = 0;
    char hashhex[65], err[512];
    uint64_t failures = 0;
    unsigned long long off = (unsigned long long)rec->offset;
    *ntx = 0;
    if (block_parse(&b, rec->data, rec->len, err, sizeof(err)) != RC_OK) {
        printf("%s offset %llu: bad block: %s\n", path, off, err);
        return 1;
    }
    hex_encode_rev(hashhex, b.hash, 32);
    buf_reset(ser);
    block_serialize(&b, ser, 1);
    if (ser->len != rec->len || memcmp(ser->data, rec->data, rec->len) != 0) {
        printf("%s offset %llu: block %s does not re-serialize byte for byte\n", path, off,
               hashhex);
        failures++;
    }
    if (!pow_check(b.hash, b.header.bits, chain)) {
        printf("%s offset %llu: block %s does not meet its proof of work %08x (high-hash)\n",
               path, off, hashhex, b.header.bits);
        failures++;
    }
    merkle_block_root(root, &mutated, &b);
    if (memcmp(root, b.header.merkle_root, 32) != 0) {
        printf("%s offset %llu: block %s: merkle root mismatch (bad-txnmrklroot)\n", path, off,
               hashhex);
        failures++;
    } else if (mutated) {
        printf("%s offset %llu: block %s: duplicate transactions (bad-txns-duplicate)\n", path,
               off, hashhex);
        failures++;
    }
    memcpy(e.hash, b.hash, 32);
    memcpy(e.prev, b.header.prev_hash, 32);
    e.height = -1;
    e.ntx = b.tx_count;
    if (map_add(map, &e)) {
        printf("%s offset %llu: block %s appears twice\n", path, off, hashhex);
    } else {
        *ntx = b.tx_count;
    }
    block_clear(&b);
    return failures;
}

/* The XOR key of path: a node's blkNNNNN.dat is under the key of the xor.dat beside it (a
 * blocks directory); any other file, or one without an xor.dat, is read as it is. Returns 0,
 * or 1 after an error message. */
static int file_key(const char *path, struct obfuscation *obf)
{
    static const uint8_t zero[OBFUSCATION_KEY_SIZE];
    uint8_t key[OBFUSCATION_KEY_SIZE];
    char dir[4096], err[512];
    unsigned num;
    char tail[8];
    obfuscation_init(obf, zero);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (strlen(base) != 12 || sscanf(base, "blk%5u.%3s", &num, tail) != 2 ||
        strcmp(base + 8, ".dat") != 0) {
        return 0;
    }
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    int rc = blockstore_read_xor_key(dir, key, err, sizeof(err));
    if (rc == RC_OK) {
        obfuscation_init(obf, key);
    } else if (rc != RC_NOT_FOUND) {
        fprintf(stderr, "%s: %s\n", progname, err);
        return 1;
    }
    return 0;
}

/* Every record of the block file at path into map (the chain from its magic when *chain is
 * NULL). Returns 0 with *failures and *total_tx grown, or 1 after an error message when the
 * file cannot be read as a block file. */
static int scan_file(const struct chain_params **chain, const char *path, struct block_map *map,
                     struct buf *ser, uint64_t *failures, uint64_t *total_tx)
{
    char err[512];
    uint8_t magic[4];
    struct blockfile *bf = NULL;
    struct blockfile_record rec;
    struct blockfile_stats st;
    struct obfuscation obf;
    if (file_key(path, &obf)) {
        return 1;
    }
    if (!*chain) {
        if (blockfile_sniff_magic(path, &obf, magic, err, sizeof(err)) != RC_OK) {
            fprintf(stderr, "%s: %s\n", progname, err);
            return 1;
        }
        *chain = chain_by_magic(magic);
        if (!*chain) {
            fprintf(stderr,
                    "%s: %s does not start with a known network magic (found %02x%02x%02x%02x);"
                    " give -chain=NAME\n",
                    progname, path, magic[0], magic[1], magic[2], magic[3]);
            return 1;
        }
    }
    if (blockfile_open_obfuscated(&bf, path, (*chain)->magic, &obf, err, sizeof(err)) != RC_OK) {
        fprintf(stderr, "%s: %s\n", progname, err);
        return 1;
    }
    while (blockfile_next(bf, &rec) == 1) {
        uint64_t ntx;
        *failures += check_record(*chain, path, &rec, map, ser, &ntx);
        *total_tx += ntx;
    }
    blockfile_get_stats(bf, &st);
    if (st.read_error) {
        fprintf(stderr, "%s: cannot read %s at offset %llu: %s\n", progname, path,
                (unsigned long long)st.read_error_at, strerror(st.read_error));
        blockfile_close(bf);
        return 1;
    }
    printf("file: %s (%s, %llu bytes, %llu records, %llu bytes skipped)\n", path, (*chain)->name,
           (unsigned long long)blockfile_size(bf), (unsigned long long)st.records,
           (unsigned long long)st.skipped_bytes);
    if (st.truncated_tail) {
        printf("%s: record at offset %llu is cut short by the end of the file\n", path,
               (unsigned long long)st.truncated_at);
        (*failures)++;
    }
    blockfile_close(bf);
    return 0;
}

/* Gives every block of map that links to the genesis block its height: files may hold
 * blocks before their parents, so it repeats until nothing changes. */
static void link_heights(struct block_map *map, const struct chain_params *chain)
{
    static const uint8_t zero[32];
    int changed = 1;
    while (changed) {
        changed = 0;
        for (size_t i = 0; i < map->n; i++) {
            struct entry *e = &map->v[i];
            if (e->height >= 0) {
                continue;
            }
            if (memcmp(e->prev, zero, 32) == 0) {
                if (memcmp(e->hash, chain->genesis_hash, 32) != 0) {
                    continue; /* reported as unlinked */
                }
                e->height = 0;
                changed = 1;
                continue;
            }
            const struct entry *parent = map_find(map, e->prev);
            if (parent && parent->height >= 0) {
                e->height = parent->height + 1;
                changed = 1;
            }
        }
    }
}

/* The blocks that do not link (the first ten whose parent is really absent named: the
 * others descend from one of them), counted in *unlinked; returns the highest block. */
static const struct entry *find_tip(const struct block_map *map, const struct chain_params *chain,
                                    uint64_t *unlinked)
{
    static const uint8_t zero[32];
    const struct entry *tip = NULL;
    uint64_t missing = 0;
    *unlinked = 0;
    for (size_t i = 0; i < map->n; i++) {
        const struct entry *e = &map->v[i];
        if (e->height >= 0) {
            if (!tip || e->height > tip->height) {
                tip = e;
            }
            continue;
        }
        if (!map_find(map, e->prev) && missing++ < 10) {
            char h[65], p[65];
            hex_encode_rev(h, e->hash, 32);
            hex_encode_rev(p, e->prev, 32);
            if (memcmp(e->prev, zero, 32) == 0) {
                printf("block %s: has no parent and is not the %s genesis block\n", h,
                       chain->name);
            } else {
                printf("block %s: parent %s is not in the files\n", h, p);
            }
        }
        (*unlinked)++;
    }
    return tip;
}

static int parse_blocks(const struct chain_params *chain, int nfiles, char **files)
{
    struct block_map map = {0};
    struct buf ser;
    uint64_t total_tx = 0, failures = 0, unlinked;
    int rc = 0;
    buf_init(&ser);
    for (int fi = 0; fi < nfiles && rc == 0; fi++) {
        rc = scan_file(&chain, files[fi], &map, &ser, &failures, &total_tx);
    }
    if (rc) {
        goto out;
    }
    link_heights(&map, chain);
    const struct entry *tip = find_tip(&map, chain, &unlinked);
    if (unlinked) {
        printf("%llu blocks do not link to the %s genesis block\n", (unsigned long long)unlinked,
               chain->name);
        failures += unlinked;
    }
    printf("blocks: %zu\n", map.n);
    printf("transactions: %llu\n", (unsigned long long)total_tx);
    if (tip) {
        char h[65];
        hex_encode_rev(h, tip->hash, 32);
        printf("tip: height %lld hash %s\n", (long long)tip->height, h);
    } else {
        printf("tip: none\n");
    }
    if (failures) {
        printf("FAILED: %llu problems\n", (unsigned long long)failures);
        rc = 1;
    }
out:
    buf_clear(&ser);
    map_free(&map);
    return rc;
}

int main(int argc, char **argv)
{
    const struct chain_params *chain = NULL;
    const char *name;
    int i = 1;

    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i] + (argv[i][1] == '-' ? 2 : 1);
        if (strcmp(a, "help") == 0 || strcmp(a, "h") == 0 || strcmp(a, "?") == 0) {
            usage(stdout);
            return 0;
        } else if (chain_params_option(a, &chain, &name)) {
            if (!chain) {
                fprintf(stderr, "%s: unknown chain '%s' (main, test, testnet4, signet, regtest)\n",
                        progname, name);
                return 1;
            }
        } else {
            fprintf(stderr, "%s: unknown option %s (see -help)\n", progname, argv[i]);
            return 1;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return 1;
    }
    const char *cmd = argv[i++];
    if (strcmp(cmd, "parse-blocks") == 0) {
        if (i >= argc) {
            fprintf(stderr, "%s: parse-blocks needs at least one FILE\n", progname);
            return 1;
        }
        return parse_blocks(chain, argc - i, argv + i);
    }
    const struct chain_params *p = chain ? chain : chain_params_get("main");
    if (strcmp(cmd, "decodescript") == 0) {
        return util_cmd_decodescript(argc - i, argv + i, p);
    }
    if (strcmp(cmd, "verify-tx") == 0) {
        return util_cmd_verify_tx(argc - i, argv + i);
    }
    if (strcmp(cmd, "verify-block") == 0) {
        return util_cmd_verify_block(argc - i, argv + i, p);
    }
    if (strcmp(cmd, "check-headers") == 0) {
        return util_cmd_check_headers(argc - i, argv + i, chain);
    }
    if (strcmp(cmd, "dump-chainstate") == 0 || strcmp(cmd, "load-chainstate") == 0) {
        return util_cmd_chainstate(argc - i, argv + i, p, cmd[0] == 'l');
    }
    if (strcmp(cmd, "genchain") == 0) {
        return util_cmd_genchain(argc - i, argv + i);
    }
    fprintf(stderr, "%s: unknown command '%s' (see -help)\n", progname, cmd);
    return 1;
}

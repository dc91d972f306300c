/* Fuzz target: the config reader (bitcoin.conf, as bitnoded and bitnode-cli read it). The
 * first byte picks the option table (bit 0: bitnoded's or bitnode-cli's) and the reader
 * (bit 1: the text parser alone, or the whole file reader with its includes); the rest is
 * the file. For the file reader the input is cut at its first NUL into bitcoin.conf and
 * inc.conf, both in a scratch datadir, so includeconf=inc.conf reaches the second part.
 *
 * Nothing may crash, leak or read out of bounds; a refused file must say why, in a
 * message Core's callers prefix with "Error reading configuration file: ". A file that is
 * read then goes through what start-up does with it: chain selection, validation of every
 * value, the ignored options, the warnings, and every option's value read back by name.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a few built-in files.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util/args.h"
#include "util/config.h"
#include "util/log.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use(struct args *a, const struct arg_def *defs, size_t n_defs)
{
    char err[512] = "";
    if (args_select_chain(a, err, sizeof(err)) != 0) {
        if (!err[0]) {
            abort();
        }
        return;
    }
    (void)args_chain(a);
    err[0] = 0;
    if (args_validate(a, err, sizeof(err)) != 0 && !err[0]) {
        abort();
    }
    struct arg_ignored *ig = NULL;
    (void)args_ignored(a, &ig);
    free(ig);
    for (size_t i = 0; i < args_warning_count(a); i++) {
        if (!args_warning(a, i)) {
            abort();
        }
        (void)args_warning_kind(a, i);
    }
    for (size_t i = 0; i < n_defs; i++) {
        const char *name = defs[i].name;
        (void)args_is_set(a, name);
        (void)args_is_negated(a, name);
        (void)args_get(a, name, NULL);
        (void)args_get_int(a, name, 0);
        (void)args_get_bool(a, name, false);
        const char **list = NULL;
        (void)args_get_list(a, name, &list);
        free(list);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    const struct arg_def *defs = (data[0] & 1) ? bitnode_cli_options : bitnoded_options;
    size_t n_defs = (data[0] & 1) ? bitnode_cli_options_len : bitnoded_options_len;
    fuzz_quiet_log();
    struct args *a = args_new(defs, n_defs);
    char err[512] = "";
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    int rc;
    if (!(data[0] & 2)) {
        rc = args_read_config(a, text, len, "bitcoin.conf", data[0] & 4, err, sizeof(err));
    } else {
        const char *nul = memchr(text, 0, len);
        size_t first = nul ? (size_t)(nul - text) : len;
        char path[600];
        fuzz_write_file(path, sizeof(path), "inc.conf", nul ? nul + 1 : "",
                        nul ? len - first - 1 : 0);
        fuzz_write_file(path, sizeof(path), CONFIG_FILENAME, text, first);
        char *read_path = NULL;
        rc = config_read_files(a, fuzz_tmpdir(), data[0] & 4, &read_path, err, sizeof(err));
        free(read_path);
    }
    if (rc != 0) {
        if (!err[0]) {
            abort();
        }
    } else {
        use(a, defs, n_defs);
    }
    args_free(a);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    size_t count = 0;
    static const char *const seeds[] = {
        "\006regtest=1\n[regtest]\nrpcport=15001\nincludeconf=inc.conf\n\000server=1\n",
        "\000# comment\nrpcuser=u\nrpcpassword=p\n[main]\nnolisten=1\ndebug=net\n",
        "\001rpcconnect=127.0.0.1\n[test]\nrpcport=x\n",
        "\000testnet=1\nregtest=1\n",
    };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        size_t n = 1 + strlen(seeds[i] + 1);
        if (i == 0) {
            n += 1 + strlen(seeds[i] + n + 1);
        }
        LLVMFuzzerTestOneInput((const uint8_t *)seeds[i], n);
        count++;
    }
    return count;
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif

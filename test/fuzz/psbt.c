/* Fuzz target: PSBT decoding (decodepsbt, combinepsbt, finalizepsbt, analyzepsbt and the
 * wallet RPCs take PSBTs from the caller). The input is a serialized PSBT, or with its
 * first byte 'c' (the base64 alphabet has no such leading form of a PSBT's magic) the text
 * after it as base64.
 *
 * Nothing may crash, leak or read out of bounds; a failure must say why. A PSBT that
 * parses serializes in Core's canonical order to bytes that parse again and serialize the
 * same (a second round trip is a fixed point); it then goes through what the RPCs do with
 * one: the unsigned transaction, each input's UTXO, analysis, combining with itself (which
 * must succeed and change nothing), finalizing and extracting, and dropping unneeded UTXOs.
 *
 * libFuzzer (clang -fsanitize=fuzzer) or standalone: the replayer (the default) runs files
 * and directories given on the command line, or, with none, a few built-in inputs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/tx.h"
#include "sign/psbt.h"
#include "util/buf.h"
#include "util/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(struct psbt *p)
{
    struct buf b1, b2;
    buf_init(&b1);
    buf_init(&b2);
    psbt_serialize(p, &b1);
    struct psbt q;
    char err[256] = "";
    if (psbt_parse(&q, b1.data, b1.len, err, sizeof(err)) != 0) {
        fprintf(stderr, "a parsed PSBT's serialization does not parse: %s\n", err);
        abort();
    }
    psbt_serialize(&q, &b2);
    if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0) {
        fprintf(stderr, "PSBT serialization is not a fixed point\n");
        abort();
    }
    /* Combining with itself: the same PSBT. */
    struct psbt c;
    const struct psbt *two[2] = {p, &q};
    if (psbt_combine(&c, two, 2) != 0) {
        fprintf(stderr, "a PSBT does not combine with itself\n");
        abort();
    }
    buf_reset(&b2);
    psbt_serialize(&c, &b2);
    if (b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0) {
        fprintf(stderr, "combining a PSBT with itself changed it\n");
        abort();
    }
    psbt_clear(&c);
    char *b64 = psbt_to_base64(p);
    struct psbt d;
    if (psbt_parse_base64(&d, b64, err, sizeof(err)) != 0) {
        abort();
    }
    psbt_clear(&d);
    free(b64);

    struct tx tx;
    if (psbt_get_unsigned_tx(p, &tx) == 0) {
        tx_clear(&tx);
    }
    for (size_t i = 0; i < p->n_inputs; i++) {
        (void)psbt_input_utxo(&p->inputs[i]);
        (void)psbt_input_is_final(&p->inputs[i]);
    }
    struct psbt_analysis a;
    psbt_analyze(p, &a);
    psbt_analysis_clear(&a);
    if (psbt_finalize_extract(&q, &tx)) {
        tx_clear(&tx);
    }
    psbt_remove_unneeded_utxos(&q);
    psbt_clear(&q);
    buf_clear(&b1);
    buf_clear(&b2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct psbt p;
    char err[256] = "";
    int rc;
    if (size > 0 && data[0] == 'c') {
        char *s = xmalloc(size);
        memcpy(s, data + 1, size - 1);
        s[size - 1] = 0;
        rc = psbt_parse_base64(&p, s, err, sizeof(err));
        free(s);
    } else {
        rc = psbt_parse(&p, data, size, err, sizeof(err));
    }
    if (rc != 0) {
        if (!err[0]) {
            abort();
        }
        return 0;
    }
    exercise(&p);
    psbt_clear(&p);
    return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "replay.h"

static size_t builtin_inputs(void)
{
    size_t count = 0;
    static const char *const seeds[] = {
        "cHNidP8BAHUCAAAAASaBcTce3/KF6Tet7qSze3gADAVmy7OtZGQXE8pCFxv2AAAAAAD+////AtPf9QUAAAAAGXapFNDFmQPFusKGh2DpD9UhpGZap2UgiKwA4fUFAAAAABepFDVF5uM7gyxHBQ8k0+65PJwDlIvHh7MuEwAAAQD9pQEBAAAAAAECiaPHHqtNIOA3G7ukzGmPopXJRjr6Ljl/hTPMti+VZ+UBAAAAFxYAFL4Y0VKpsBIDna89p95PUzSe7LmF/////4b4qkOnHf8USIk6UwpyN+9rRgi7st0tAXHmOuxqSJC0AQAAABcWABT+Pp7xp0XpdNkCxDVZQ6vLNL1TU/////8CAMLrCwAAAAAZdqkUhc/xCX/Z4Ai7NK9wnGIZeziXikiIrHL++E4sAAAAF6kUM5cluiHv1irHU6m80GfWx6ajnQWHAkcwRAIgJxK+IuAnDzlPVoMR3HyppolwuAJf3TskAinwf4pfOiQCIAGLONfc0xTnNMkna9b7QPZzMlvEuqFEyADS8vAtsnZcASED0uFWdJQbrUqZY3LLh+GFbTZSYG2YVi/jnF6efkE/IQUCSDBFAiEA0SuFLYXc2WHS9fSrZgZU327tzHlMDDPOXMMJ/7X85Y0CIGczio4OFyXBl/saiK9Z9R5E5CVbIBZ8hoQDHAXR8lkqASECI7cr7vCWXRC+B3jv7NYfysb3mk6haTkzgHNEZPhPKrMAAAAAAAAA",
        "cHNidP8BAAoCAAAAAAAAAAAAAA==",
    };
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
        size_t n = strlen(seeds[i]);
        char *s = xmalloc(n + 2);
        s[0] = 'c';
        memcpy(s + 1, seeds[i], n + 1);
        LLVMFuzzerTestOneInput((const uint8_t *)s, n + 1);
        free(s);
        count++;
    }
    return count;
}

int main(int argc, char **argv)
{
    return fuzz_replay_main(argc, argv, builtin_inputs, NULL);
}
#endif

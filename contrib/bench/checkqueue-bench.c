/* checkqueue-bench: the script checks of real mainnet blocks on the check pool.
 *
 *   contrib/bench/checkqueue-bench [--dir DIR] [--reps N] [--par LIST]
 *
 * DIR holds <height>-<hash>.bin blocks with their <...>.spent.json.xz spent outputs
 * (default: ../shared/data/mainnet-blocks-with-spent-outputs). For every block and every
 * -par value in LIST (default "1,2"), it verifies all input scripts N times (default 5) with
 * checkqueue_verify_block, no signature cache, and prints the best and median wall time,
 * the CPU time, the share of checks the calling thread did itself, and the speed-up over
 * the first -par value. Built by make, never run by the tests.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "consensus/params.h"
#include "primitives/block.h"
#include "script/block_verify.h"
#include "util/file.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/rc.h"
#include "util/xmalloc.h"
#include "validation/checkqueue.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    struct buf b;
    buf_init(&b);
    uint8_t tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0) {
        buf_append(&b, tmp, n);
    }
    fclose(f);
    *len = b.len;
    return b.data ? b.data : xmalloc(1);
}

static char *read_xz(const char *path)
{
    struct buf b;
    buf_init(&b);
    if (file_read_all(&b, path, NULL, 0) != RC_OK) {
        buf_clear(&b);
        return NULL;
    }
    return (char *)b.data; /* NUL-terminated; ownership passes */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Benchmarks one block file. Returns 0, or 1 if it does not load or verify. */
static int bench_block(const char *dir, const char *name, const int *pars, int npars, int reps)
{
    char path[2048], err[200] = "";
    size_t len;
    struct block b;
    block_init(&b);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    uint8_t *raw = read_file(path, &len);
    if (!raw || block_parse(&b, raw, len, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s: cannot read or parse %s\n", path, err);
        free(raw);
        return 1;
    }
    free(raw);
    snprintf(path, sizeof(path), "%s/%.*s.spent.json.xz", dir, (int)(strlen(name) - 4), name);
    char *text = read_xz(path);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    if (!j) {
        fprintf(stderr, "%s: cannot read\n", path);
        block_clear(&b);
        return 1;
    }
    size_t n = json_array_size(j);
    struct buf scripts;
    buf_init(&scripts);
    size_t *offs = xcalloc(n + 1, sizeof(size_t));
    struct tx_out *spent = xcalloc(n + 1, sizeof(*spent));
    for (size_t k = 0; k < n; k++) {
        json_t *o = json_object_get(json_array_get(j, k), "txout");
        offs[k] = scripts.len;
        hex_decode(&scripts, json_string_value(json_object_get(o, "script_pubkey")));
        spent[k].value_sat = (int64_t)json_integer_value(json_object_get(o, "value"));
    }
    offs[n] = scripts.len;
    for (size_t k = 0; k < n; k++) {
        spent[k].script_pubkey.data = scripts.data + offs[k];
        spent[k].script_pubkey.len = offs[k + 1] - offs[k];
    }
    json_decref(j);
    free(offs);

    int height = atoi(name);
    uint32_t flags = script_block_flags(chain_params_get("main"), height, b.hash);
    double base = 0;
    int bad = 0;
    printf("block %d: %zu txs, %zu inputs\n", height, b.tx_count, n);
    for (int p = 0; p < npars; p++) {
        int workers = checkqueue_workers_for_par(pars[p], checkqueue_ncores());
        struct checkqueue *q = checkqueue_new(workers);
        double *wall = xcalloc((size_t)reps, sizeof(double));
        double cpu = 0;
        for (int r = 0; r < reps; r++) {
            struct checkqueue_result res;
            double c0 = cpu_s(), t0 = now_s();
            int rc = checkqueue_verify_block(q, &res, &b, spent, n, flags, NULL, 0);
            wall[r] = now_s() - t0;
            cpu += cpu_s() - c0;
            if (rc != 0 || res.failed) {
                bad = 1;
            }
        }
        struct checkqueue_stats st;
        checkqueue_get_stats(q, &st);
        qsort(wall, (size_t)reps, sizeof(double), cmp_double);
        if (p == 0) {
            base = wall[0];
        }
        printf("  -par=%-2d (%d workers): best %8.1f ms  median %8.1f ms  cpu/run %8.1f ms  "
               "caller did %5.1f%%  speed-up %.2f%s\n",
               pars[p], workers, wall[0] * 1e3, wall[reps / 2] * 1e3, cpu / reps * 1e3,
               st.inputs ? 100.0 * (double)st.master_checks / (double)st.inputs : 0.0,
               base / wall[0], bad ? "  (VERDICT WRONG)" : "");
        /* The caller's time per run: preparing transactions (the workers already check
         * what is published), checking, and idle waiting for the workers' last batches. */
        double tot = (double)(st.prepare_ns + st.check_ns + st.wait_ns);
        printf("           caller per run: prepare %6.2f ms  check %8.2f ms  wait %6.2f ms "
               "(idle %4.1f%%)\n",
               (double)st.prepare_ns / 1e6 / reps, (double)st.check_ns / 1e6 / reps,
               (double)st.wait_ns / 1e6 / reps, tot > 0 ? 100.0 * (double)st.wait_ns / tot : 0.0);
        free(wall);
        checkqueue_free(q);
    }
    free(spent);
    buf_clear(&scripts);
    block_clear(&b);
    return bad;
}

int main(int argc, char **argv)
{
    const char *dir = "../shared/data/mainnet-blocks-with-spent-outputs";
    const char *par_list = "1,2";
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--par") == 0 && i + 1 < argc) {
            par_list = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--dir DIR] [--reps N] [--par LIST]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1) {
        reps = 1;
    }
    int pars[32], npars = 0;
    for (const char *s = par_list; *s && npars < 32;) {
        char *end;
        pars[npars++] = (int)strtol(s, &end, 10);
        s = *end == ',' ? end + 1 : end + strlen(end);
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open\n", dir);
        return 1;
    }
    char *names[64];
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nn < 64) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".bin") == 0) {
            names[nn++] = xstrdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, nn, sizeof(names[0]), cmp_str);
    printf("checkqueue-bench: %d cores, %d runs per configuration\n", checkqueue_ncores(), reps);
    int bad = 0;
    for (size_t i = 0; i < nn; i++) {
        bad |= bench_block(dir, names[i], pars, npars, reps);
        free(names[i]);
    }
    return bad;
}

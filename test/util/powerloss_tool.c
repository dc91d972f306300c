/* powerloss-restore: the power-loss layer's command line (powerloss.h).
 *
 *   powerloss-restore restore JOURNAL   the watched tree back to what its syncs made durable
 *   powerloss-restore discard JOURNAL   everything counts as durable (a clean stop and sync)
 *   powerloss-restore counts JOURNAL    the sync calls counted, one kind of file a line:
 *       label fsync fdatasync range_syncs dsync_writes writes bytes  (tab-separated), then
 *       "#commits N", "#msyncs N", "#syncfs N"
 * Exit status 0, or 1 with a message on stderr.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "powerloss.h"

static int print_counts(const char *jdir)
{
    char p[PL_PATH_MAX + 16];
    struct pl_counts c;
    snprintf(p, sizeof(p), "%s/counts", jdir);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &c, sizeof(c)) != (ssize_t)sizeof(c) ||
        memcmp(c.magic, PL_COUNTS_MAGIC, 8) != 0) {
        fprintf(stderr, "powerloss-restore: no counts in %s\n", jdir);
        return 1;
    }
    close(fd);
    for (uint32_t i = 0; i < c.n && i < PL_SLOTS; i++) {
        const struct pl_count *s = &c.slot[i];
        printf("%.*s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
               "\n",
               PL_LABEL, s->label, s->fsync, s->fdatasync, s->range_syncs, s->dsync_writes,
               s->writes, s->bytes);
    }
    printf("#commits %" PRIu64 "\n#msyncs %" PRIu64 "\n#syncfs %" PRIu64 "\n", c.commits,
           c.msyncs, c.syncfs);
    return 0;
}

int main(int argc, char **argv)
{
    char err[PL_PATH_MAX + 256] = "";
    if (argc != 3) {
        fprintf(stderr, "usage: %s restore|discard|counts JOURNAL\n", argv[0]);
        return 1;
    }
    int rc;
    if (strcmp(argv[1], "restore") == 0) {
        rc = pl_restore(argv[2], err, sizeof(err));
    } else if (strcmp(argv[1], "discard") == 0) {
        rc = pl_discard(argv[2], err, sizeof(err));
    } else if (strcmp(argv[1], "counts") == 0) {
        return print_counts(argv[2]);
    } else {
        fprintf(stderr, "powerloss-restore: unknown command %s\n", argv[1]);
        return 1;
    }
    if (rc != 0) {
        fprintf(stderr, "powerloss-restore: %s\n", err);
        return 1;
    }
    return 0;
}

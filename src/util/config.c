#include "util/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/args.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

#define CONFIG_MAX_BYTES (16u << 20)

char *config_file_path(const struct args *a, const char *datadir)
{
    if (args_is_negated(a, "conf")) {
        return NULL;
    }
    const char *name = args_get(a, "conf", "");
    return fs_path_join(datadir, name[0] ? name : CONFIG_FILENAME);
}

/* The includeconf= values of one section after its last negation, from index skip on. */
static size_t include_names(const struct args *a, const char *section, size_t skip,
                            const char ***names, size_t *from)
{
    size_t count = args_config_list(a, "includeconf", section, names);
    *from = skip;
    for (size_t i = 0; i < count; i++) {
        if (strcmp((*names)[i], "0") == 0 && i + 1 > *from) {
            *from = i + 1; /* "noincludeconf=1" drops the ones before */
        }
    }
    return count;
}

/* One included file, name relative to datadir. */
static int read_include(struct args *a, const char *datadir, const char *name,
                        bool ignore_unknown, char *err, size_t err_len)
{
    char *path = fs_path_join(datadir, name);
    struct buf text;
    buf_init(&text);
    char ferr[256];
    int rc = RC_OK;
    if (fs_is_dir(path)) {
        snprintf(err, err_len, "Included config file \"%s\" is a directory.", path);
        rc = RC_INVALID;
    } else if (fs_read_file(path, &text, CONFIG_MAX_BYTES, ferr, sizeof(ferr)) != RC_OK) {
        snprintf(err, err_len, "Failed to include configuration file %s", name);
        rc = RC_INVALID;
    } else if ((rc = args_read_config(a, (const char *)text.data, text.len, name, ignore_unknown,
                                      err, err_len)) == RC_OK) {
        LOG_INFO("Included configuration file %s", name);
    }
    buf_clear(&text);
    free(path);
    return rc;
}

/* The files the chain's section names, then the top level's, relative to the datadir; an
 * includeconf= inside an included file is ignored with Core's warning. */
static int read_includes(struct args *a, const char *datadir, bool ignore_unknown, char *err,
                         size_t err_len)
{
    if (!args_has_option(a, "includeconf") || args_is_negated(a, "includeconf") ||
        !args_peek_chain(a)) {
        return RC_OK;
    }
    const char *sections[2] = {args_peek_chain(a), ""};
    size_t counts[2], from[2];
    const char **names[2];
    int rc = RC_OK;
    for (int k = 0; k < 2; k++) { /* both lists before any file adds to them */
        counts[k] = include_names(a, sections[k], 0, &names[k], &from[k]);
    }
    for (int k = 0; k < 2; k++) {
        for (size_t i = from[k]; i < counts[k] && rc == RC_OK; i++) {
            rc = read_include(a, datadir, names[k][i], ignore_unknown, err, err_len);
        }
        free(names[k]);
    }
    for (int k = 0; k < 2 && rc == RC_OK; k++) {
        const char **later;
        size_t start, count = include_names(a, sections[k], counts[k], &later, &start);
        for (size_t i = start; i < count; i++) {
            fprintf(stderr,
                    "warning: -includeconf cannot be used from included files; ignoring "
                    "-includeconf=%s\n",
                    later[i]);
        }
        free(later);
    }
    return rc;
}

/* The main file: path, or bitnode.conf when path is the default and missing. Returns 0 with
 * *read_path set (NULL: no file), or RC_INVALID with err. */
static int read_main(struct args *a, const char *datadir, const char *path, bool ignore_unknown,
                     char **read_path, char *err, size_t err_len)
{
    bool explicit_conf = args_is_set(a, "conf");
    char ferr[512];
    struct buf text;
    buf_init(&text);
    *read_path = NULL;
    if (fs_is_dir(path)) {
        snprintf(err, err_len, "Config file \"%s\" is a directory.", path);
        return RC_INVALID;
    }
    char *used = xstrdup(path);
    int rc = fs_read_file(used, &text, CONFIG_MAX_BYTES, ferr, sizeof(ferr));
    if (rc == RC_NOT_FOUND && !explicit_conf) {
        free(used);
        used = fs_path_join(datadir, CONFIG_FILENAME_OLD);
        rc = fs_is_dir(used) ? RC_NOT_FOUND
                             : fs_read_file(used, &text, CONFIG_MAX_BYTES, ferr, sizeof(ferr));
    }
    if (rc == RC_NOT_FOUND && !explicit_conf) {
        rc = RC_OK; /* no config file: the defaults */
        free(used);
        used = NULL;
    } else if (rc == RC_NOT_FOUND) {
        snprintf(err, err_len, "specified config file \"%s\" could not be opened.", path);
        rc = RC_INVALID;
    } else if (rc != RC_OK) {
        snprintf(err, err_len, "%s", ferr);
        rc = RC_INVALID;
    } else {
        rc = args_read_config(a, (const char *)text.data, text.len, used, ignore_unknown, err,
                              err_len);
    }
    buf_clear(&text);
    if (rc == RC_OK) {
        *read_path = used;
    } else {
        free(used);
    }
    return rc;
}

int config_read_files(struct args *a, const char *datadir, bool ignore_unknown, char **read_path,
                      char *err, size_t err_len)
{
    char *path = config_file_path(a, datadir);
    int rc = RC_OK;
    *read_path = NULL;
    if (path) { /* NULL: -noconf */
        rc = read_main(a, datadir, path, ignore_unknown, read_path, err, err_len);
        if (rc == RC_OK && *read_path) {
            rc = read_includes(a, datadir, ignore_unknown, err, err_len);
        }
    }
    free(path);
    /* The file may have set datadir=. */
    const char *dir = args_get(a, "datadir", "");
    if (rc == RC_OK && dir[0] && !fs_is_dir(dir)) {
        snprintf(err, err_len, "specified data directory \"%s\" does not exist.", dir);
        rc = RC_INVALID;
    }
    if (rc != RC_OK) {
        free(*read_path);
        *read_path = NULL;
    }
    return rc;
}

static bool same_file(const char *p, const char *q)
{
    struct stat a, b;
    return stat(p, &a) == 0 && stat(q, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int config_check_ignored(const struct args *a, const char *datadir, const char *orig_datadir,
                         const char *read_path, char *err, size_t err_len)
{
    char *base_conf = fs_path_join(datadir, CONFIG_FILENAME);
    char *used = read_path ? xstrdup(read_path) : config_file_path(a, orig_datadir);
    struct stat st;
    int rc = RC_OK;
    if (stat(base_conf, &st) != 0) {
        goto out;
    }
    if (!used) {
        LOG_INFO("Data directory \"%s\" contains a \"%s\" file which is explicitly ignored "
                 "using -noconf.",
                 datadir, CONFIG_FILENAME);
        goto out;
    }
    if (same_file(used, base_conf)) {
        goto out;
    }
    const char *cli_conf = args_get(a, "conf", "");
    char source[4200];
    if (cli_conf[0]) {
        snprintf(source, sizeof(source), "command line argument \"-conf=%s\"", cli_conf);
    } else {
        snprintf(source, sizeof(source), "data directory \"%s\"", orig_datadir);
    }
    int n = snprintf(err, err_len,
                     "Data directory \"%s\" contains a \"%s\" file which is ignored, because a "
                     "different configuration file \"%s\" from %s is being used instead. "
                     "Possible ways to address this would be to:\n"
                     "- Delete or rename the \"%s\" file in data directory \"%s\".\n"
                     "- Change datadir= or conf= options to specify one configuration file, not "
                     "two, and use includeconf= to include any other configuration files.",
                     datadir, CONFIG_FILENAME, used, source, CONFIG_FILENAME, datadir);
    if (args_has_option(a, "allowignoredconf") && args_get_bool(a, "allowignoredconf", false)) {
        LOG_WARN("%s", err);
    } else {
        if (n >= 0 && (size_t)n < err_len) {
            snprintf(err + n, err_len - (size_t)n,
                     "\n- Set allowignoredconf=1 option to treat this condition as a warning, "
                     "not an error.");
        }
        rc = RC_INVALID;
    }
out:
    free(used);
    free(base_conf);
    return rc;
}

#include "util/args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/check.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"


enum { SRC_CMDLINE = 0, SRC_CONFIG = 1 };

struct entry {
    const struct arg_def *def;
    int src;
    char *section; /* config only: "" for the top level */
    char *value;   /* "0" when negated */
    bool negated;
};

struct args {
    const struct arg_def *defs;
    size_t n_defs;
    struct entry *e;
    size_t n, cap;
    char *chain;
    char **warnings;
    size_t n_warnings;
    enum args_warning_kind *warning_kind;
};

static const char *known_sections[] = {"main", "test", "testnet4", "signet", "regtest"};

/* The reason at the end of an ARG_IGNORED option's help text, or NULL. */
static const char *ignored_reason(const struct arg_def *def)
{
    const char *sep = strstr(def->help, ARG_REASON_SEP);
    return sep ? sep + strlen(ARG_REASON_SEP) : NULL;
}

struct args *args_new(const struct arg_def *defs, size_t n_defs)
{
    for (size_t i = 0; i < n_defs; i++) {
        bool ignored = (defs[i].flags & ARG_IGNORED) != 0;
        CHECK_ALWAYS(ignored == (ignored_reason(&defs[i]) != NULL));
        CHECK_ALWAYS(!ignored || !(defs[i].flags & (ARG_NOT_IMPL | ARG_ONLY_OFF)));
    }
    struct args *a = xcalloc(1, sizeof(*a));
    a->defs = defs;
    a->n_defs = n_defs;
    a->chain = xstrdup("main");
    return a;
}

void args_free(struct args *a)
{
    if (!a) {
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        free(a->e[i].section);
        free(a->e[i].value);
    }
    free(a->e);
    for (size_t i = 0; i < a->n_warnings; i++) {
        free(a->warnings[i]);
    }
    free(a->warnings);
    free(a->warning_kind);
    free(a->chain);
    free(a);
}

static void add_warning(struct args *a, enum args_warning_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_warning(struct args *a, enum args_warning_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    va_start(ap, fmt);
    vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    a->warnings = xrealloc(a->warnings, (a->n_warnings + 1) * sizeof(*a->warnings));
    a->warning_kind =
        xrealloc(a->warning_kind, (a->n_warnings + 1) * sizeof(*a->warning_kind));
    a->warning_kind[a->n_warnings] = kind;
    a->warnings[a->n_warnings++] = msg; /* any length: a key or section as long as given */
}

static const struct arg_def *find_def(const struct args *a, const char *name, size_t len)
{
    for (size_t i = 0; i < a->n_defs; i++) {
        if (strlen(a->defs[i].name) == len && memcmp(a->defs[i].name, name, len) == 0) {
            return &a->defs[i];
        }
    }
    return NULL;
}

static void add_entry(struct args *a, const struct arg_def *def, int src, const char *section,
                      const char *value, bool negated)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->e = xrealloc(a->e, a->cap * sizeof(*a->e));
    }
    struct entry *e = &a->e[a->n++];
    e->def = def;
    e->src = src;
    e->section = xstrdup(section ? section : "");
    e->value = xstrdup(negated ? "0" : value);
    e->negated = negated;
}

/* Core's InterpretBool: "" and non-zero numbers are true, anything else false. */
static bool interpret_bool(const char *s)
{
    return s[0] == 0 || strtol(s, NULL, 10) != 0;
}

/* Interprets name (maybe "noname") and value (NULL: none given) as Core's InterpretKey and
 * InterpretValue do. Returns 0 with *def_out (NULL when no option has that name), *negated
 * and *value_out set; or RC_INVALID with err filled (a negation or an elision the option
 * refuses). */
static int interpret(struct args *a, const char *name, size_t name_len, const char *value,
                     const struct arg_def **def_out, bool *negated, const char **value_out,
                     char *err, size_t err_len)
{
    const struct arg_def *def = find_def(a, name, name_len);
    bool neg = false;
    if (!def && name_len > 2 && memcmp(name, "no", 2) == 0) {
        def = find_def(a, name + 2, name_len - 2);
        neg = def != NULL;
    }
    *def_out = def;
    *negated = false;
    *value_out = "";
    if (!def) {
        return RC_OK;
    }
    if (neg) {
        if (def->flags & ARG_NO_NEGATION) {
            snprintf(err, err_len, "Negating of -%s is meaningless and therefore forbidden",
                     def->name);
            return RC_INVALID;
        }
        /* -nofoo=0 is a double negative: Core takes it as -foo=1 and warns. */
        if (value && !interpret_bool(value)) {
            add_warning(a, ARGS_WARNING_LOG, "Parsed potentially confusing double-negative -%s=%s",
                        def->name, value);
            *value_out = "1";
            return RC_OK;
        }
        *negated = true;
        *value_out = "0";
        return RC_OK;
    }
    if (!value && (def->flags & ARG_NO_ELISION)) {
        snprintf(err, err_len,
                 "Can not set -%s with no value. Please specify value with -%s=value.",
                 def->name, def->name);
        return RC_INVALID;
    }
    *value_out = value ? value : (def->flags & ARG_BOOL) ? "1" : "";
    return RC_OK;
}

int args_parse_cmdline(struct args *a, int argc, char *const *argv, int *first_positional,
                       char *err, size_t err_len)
{
    if (first_positional) {
        *first_positional = argc;
    }
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (s[0] != '-' || s[1] == 0) {
            if (first_positional) {
                *first_positional = i;
                return RC_OK;
            }
            snprintf(err, err_len,
                     "Command line contains unexpected token '%s', see -help for a list of "
                     "options.",
                     s);
            return RC_INVALID;
        }
        s++;
        if (s[0] == '-') {
            s++;
        }
        if (strcmp(s, "h") == 0 || strcmp(s, "?") == 0) {
            s = "help";
        }
        const char *eq = strchr(s, '=');
        size_t name_len = eq ? (size_t)(eq - s) : strlen(s);
        bool negated;
        const char *value;
        const struct arg_def *def;
        if (interpret(a, s, name_len, eq ? eq + 1 : NULL, &def, &negated, &value, err,
                      err_len) != RC_OK) {
            return RC_INVALID;
        }
        if (!def) {
            snprintf(err, err_len, "Invalid parameter %s", argv[i]); /* as given, Core's */
            return RC_INVALID;
        }
        add_entry(a, def, SRC_CMDLINE, NULL, value, negated);
    }
    return RC_OK;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Trims s[0..*len) in place; returns the new start. */
static const char *trim(const char *s, size_t *len)
{
    while (*len > 0 && is_space(s[0])) {
        s++;
        (*len)--;
    }
    while (*len > 0 && is_space(s[*len - 1])) {
        (*len)--;
    }
    return s;
}

static bool section_known(const char *s)
{
    for (size_t i = 0; i < ARRAY_LEN(known_sections); i++) {
        if (strcmp(s, known_sections[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* One line of a config file, as Core's GetConfigOptions sees it: without its comment,
 * trimmed. */
struct conf_line {
    const char *text;
    size_t len;
    bool had_hash; /* a '#' cut the line */
};

/* The line at *pos (moved past it). Returns false at the end of the text. */
static bool next_line(const char *text, size_t len, size_t *pos, struct conf_line *l)
{
    if (*pos >= len) {
        return false;
    }
    size_t end = *pos;
    while (end < len && text[end] != '\n') {
        end++;
    }
    l->text = text + *pos;
    l->len = end - *pos;
    *pos = end + 1;
    const char *hash = memchr(l->text, '#', l->len);
    l->had_hash = hash != NULL;
    if (hash) {
        l->len = (size_t)(hash - l->text);
    }
    l->text = trim(l->text, &l->len);
    return true;
}

static bool is_section_line(const struct conf_line *l)
{
    return l->len > 0 && l->text[0] == '[' && l->text[l->len - 1] == ']';
}

/* Core's syntax check of one line (GetConfigOptions). Returns 0, or RC_INVALID with err. */
static int check_line(const struct conf_line *l, int line_no, char *err, size_t err_len)
{
    const char *line = l->text;
    int n = (int)l->len;
    if (l->len == 0 || is_section_line(l)) {
        return RC_OK;
    }
    if (line[0] == '-') {
        snprintf(err, err_len,
                 "parse error on line %d: %.*s, options in configuration file must be "
                 "specified without leading -",
                 line_no, n, line);
        return RC_INVALID;
    }
    const char *eq = memchr(line, '=', l->len);
    if (!eq) {
        if (n >= 2 && memcmp(line, "no", 2) == 0) {
            snprintf(err, err_len,
                     "parse error on line %d: %.*s, if you intended to specify a negated "
                     "option, use %.*s=1 instead",
                     line_no, n, line, n, line);
        } else {
            snprintf(err, err_len, "parse error on line %d: %.*s", line_no, n, line);
        }
        return RC_INVALID;
    }
    /* Core looks for the word in the whole name: main.rpcpassword too. */
    char *name = xstrndup(line, (size_t)(eq - line));
    int ambiguous = l->had_hash && strstr(name, "rpcpassword") != NULL;
    free(name);
    if (ambiguous) {
        snprintf(err, err_len,
                 "parse error on line %d, using # in rpcpassword can be ambiguous and should be "
                 "avoided",
                 line_no);
        return RC_INVALID;
    }
    return RC_OK;
}

/* read_option's key (keybuf, without its section), its value, its section and the name
 * with the section (full): checked and added. Returns 0, or RC_INVALID with err filled. */
static int option_entry(struct args *a, const char *secbuf, const char *keybuf,
                        const char *valbuf, const char *full, const char *filename, int line_no,
                        bool ignore_unknown, char *err, size_t err_len)
{
    const char *base = strncmp(keybuf, "no", 2) == 0 ? keybuf + 2 : keybuf;
    if (strcmp(base, "conf") == 0) {
        snprintf(err, err_len, "conf cannot be set in the configuration file; use includeconf= "
                               "if you want to include additional config files");
        return RC_INVALID;
    }
    if (strcmp(base, "reindex") == 0) {
        add_warning(a, ARGS_WARNING_LOG,
                    "reindex=1 is set in the configuration file, which will significantly slow "
                    "down startup. Consider removing or commenting out this option for better "
                    "performance, unless there is currently a condition which makes rebuilding "
                    "the indexes necessary");
    }
    bool negated;
    const char *value;
    const struct arg_def *def;
    if (interpret(a, keybuf, strlen(keybuf), valbuf, &def, &negated, &value, err, err_len)) {
        return RC_INVALID;
    }
    if (!def) {
        if (ignore_unknown) {
            add_warning(a, ARGS_WARNING_LOG, "Ignoring unknown configuration value %s", full);
            return RC_OK;
        }
        snprintf(err, err_len, "Invalid configuration value %s", full);
        return RC_INVALID;
    }
    if (def->flags & ARG_CMDLINE_ONLY) {
        snprintf(err, err_len, "%s:%d: %s cannot be set in the configuration file", filename,
                 line_no, def->name);
        return RC_INVALID;
    }
    add_entry(a, def, SRC_CONFIG, secbuf, value, negated);
    return RC_OK;
}

/* One "key=value" line of a file whose syntax passed, in section (the file's current
 * "[section]", "" for the top level), as Core's ReadConfigStream takes it. Returns 0, or
 * RC_INVALID with err filled. */
static int read_option(struct args *a, const struct conf_line *l, const char *section,
                       const char *filename, int line_no, bool ignore_unknown, char *err,
                       size_t err_len)
{
    const char *eq = memchr(l->text, '=', l->len);
    size_t kl = (size_t)(eq - l->text);
    const char *key = trim(l->text, &kl);
    size_t vl = l->len - (size_t)(eq - l->text) - 1;
    const char *val = trim(eq + 1, &vl);
    /* Keys, values and sections of any length, as Core's (std::string): held on the heap. */
    char *secbuf = xstrdup(section), *keybuf, *valbuf, *full;
    const char *dot = memchr(key, '.', kl);
    if (dot && section[0] == 0) {
        size_t sl = (size_t)(dot - key);
        free(secbuf);
        secbuf = xstrndup(key, sl);
        kl -= sl + 1;
        key = dot + 1;
        if (!section_known(secbuf)) {
            add_warning(a, ARGS_WARNING_SECTION, "%s:%d Section [%s] is not recognized.",
                        filename, line_no, secbuf);
        }
    }
    keybuf = xstrndup(key, kl);
    valbuf = xstrndup(val, vl);
    /* Core names a key with its section ("regtest.foo"). */
    size_t fl = strlen(secbuf) + kl + 2;
    full = xmalloc(fl);
    snprintf(full, fl, "%s%s%s", secbuf, secbuf[0] ? "." : "", keybuf);
    int rc = option_entry(a, secbuf, keybuf, valbuf, full, filename, line_no, ignore_unknown, err,
                          err_len);
    free(secbuf);
    free(keybuf);
    free(valbuf);
    free(full);
    return rc;
}

int args_read_config(struct args *a, const char *text, size_t len, const char *filename,
                     bool ignore_unknown, char *err, size_t err_len)
{
    struct conf_line l;
    size_t pos = 0;
    int line_no = 0;
    /* The syntax of every line first: Core reports a bad line before any option's error. */
    while (next_line(text, len, &pos, &l)) {
        if (check_line(&l, ++line_no, err, err_len) != RC_OK) {
            return RC_INVALID;
        }
    }
    char *section = xstrdup(""); /* any length, as Core's */
    int rc = RC_OK;
    pos = 0;
    line_no = 0;
    while (rc == RC_OK && next_line(text, len, &pos, &l)) {
        line_no++;
        if (l.len == 0) {
            continue;
        }
        if (is_section_line(&l)) {
            free(section);
            section = xstrndup(l.text + 1, l.len - 2);
            if (!section_known(section)) {
                add_warning(a, ARGS_WARNING_SECTION, "%s:%d Section [%s] is not recognized.",
                            filename, line_no, section);
            }
        } else if (read_option(a, &l, section, filename, line_no, ignore_unknown, err,
                               err_len) != RC_OK) {
            rc = RC_INVALID;
        }
    }
    free(section);
    return rc;
}

/* Returns the effective entry of def in section (NULL: the top level only), following the
 * precedence described in the header. */
static const struct entry *lookup_in(const struct args *a, const struct arg_def *def,
                                     const char *section)
{
    const struct entry *best = NULL;
    for (size_t i = 0; i < a->n; i++) {
        if (a->e[i].def == def && a->e[i].src == SRC_CMDLINE) {
            best = &a->e[i];
        }
    }
    if (best) {
        return best;
    }
    if (section) {
        for (size_t i = 0; i < a->n; i++) {
            if (a->e[i].def == def && a->e[i].src == SRC_CONFIG &&
                strcmp(a->e[i].section, section) == 0) {
                return &a->e[i];
            }
        }
    }
    if (section && strcmp(section, "main") != 0 && (def->flags & ARG_NETWORK_ONLY)) {
        return NULL;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->e[i].def == def && a->e[i].src == SRC_CONFIG && a->e[i].section[0] == 0) {
            return &a->e[i];
        }
    }
    return NULL;
}

static const struct entry *lookup(const struct args *a, const char *name)
{
    const struct arg_def *def = find_def(a, name, strlen(name));
    CHECK_ALWAYS(def != NULL); /* asking for an option nobody declared is a bug */
    return lookup_in(a, def, a->chain);
}

/* The chain the options name (NULL: none named), and how many name one. */
static const char *named_chain(const struct args *a, int *count_out)
{
    static const struct {
        const char *flag;
        const char *chain;
    } flags[] = {{"regtest", "regtest"},
                 {"signet", "signet"},
                 {"testnet", "test"},
                 {"testnet4", "testnet4"}};
    const char *chosen = NULL;
    int count = 0;
    for (size_t i = 0; i < ARRAY_LEN(flags); i++) {
        const struct arg_def *def = find_def(a, flags[i].flag, strlen(flags[i].flag));
        const struct entry *e = def ? lookup_in(a, def, NULL) : NULL;
        if (e && !e->negated && (e->value[0] == 0 || strtol(e->value, NULL, 10) != 0)) {
            chosen = flags[i].chain;
            count++;
        }
    }
    const struct arg_def *cdef = find_def(a, "chain", 5);
    const struct entry *ce = cdef ? lookup_in(a, cdef, NULL) : NULL;
    if (ce && !ce->negated) {
        chosen = ce->value;
        count++;
    }
    *count_out = count;
    return chosen;
}

bool args_has_option(const struct args *a, const char *name)
{
    const char *dot = strchr(name, '.');
    const char *n = dot ? dot + 1 : name;
    size_t len = strlen(n);
    return find_def(a, n, len) ||
           (len > 2 && memcmp(n, "no", 2) == 0 && find_def(a, n + 2, len - 2));
}

const char *args_peek_chain(const struct args *a)
{
    int count;
    const char *c = named_chain(a, &count);
    return count > 1 ? NULL : c ? c : "main";
}

int args_select_chain(struct args *a, char *err, size_t err_len)
{
    int count;
    const char *chosen = named_chain(a, &count);
    if (count > 1) {
        snprintf(err, err_len,
                 "Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can "
                 "use at most one.");
        return RC_INVALID;
    }
    if (!chosen) {
        chosen = "main";
    }
    if (!fs_chain_info(chosen)) {
        snprintf(err, err_len, "Unknown chain %s.", chosen);
        return RC_INVALID;
    }
    free(a->chain);
    a->chain = xstrdup(chosen);
    if (strcmp(a->chain, "main") == 0) {
        return RC_OK;
    }
    for (size_t d = 0; d < a->n_defs; d++) {
        const struct arg_def *def = &a->defs[d];
        if (!(def->flags & ARG_NETWORK_ONLY)) {
            continue;
        }
        bool top = false, other = false;
        for (size_t i = 0; i < a->n; i++) {
            if (a->e[i].def != def) {
                continue;
            }
            if (a->e[i].src == SRC_CONFIG && a->e[i].section[0] == 0) {
                top = true;
            } else if (a->e[i].src == SRC_CMDLINE || strcmp(a->e[i].section, a->chain) == 0) {
                other = true;
            }
        }
        if (top && !other) {
            add_warning(a, ARGS_WARNING_INIT,
                        "Config setting for -%s only applied on %s network when in [%s] "
                        "section.",
                        def->name, a->chain, a->chain);
        }
    }
    return RC_OK;
}

const char *args_chain(const struct args *a)
{
    return a->chain;
}

bool args_is_set(const struct args *a, const char *name)
{
    return lookup(a, name) != NULL;
}

bool args_is_negated(const struct args *a, const char *name)
{
    const struct entry *e = lookup(a, name);
    return e && e->negated;
}

const char *args_get(const struct args *a, const char *name, const char *def)
{
    const struct entry *e = lookup(a, name);
    return e ? e->value : def;
}

int args_parse_int64(const char *s, int64_t *out)
{
    if (!s || !*s || is_space(*s)) {
        return RC_INVALID;
    }
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != 0) {
        return RC_INVALID;
    }
    *out = (int64_t)v;
    return RC_OK;
}

int64_t args_get_int(const struct args *a, const char *name, int64_t def)
{
    const struct entry *e = lookup(a, name);
    int64_t v;
    if (!e) {
        return def;
    }
    if (args_parse_int64(e->value, &v) != RC_OK) {
        return def;
    }
    return v;
}

bool args_get_bool(const struct args *a, const char *name, bool def)
{
    const struct entry *e = lookup(a, name);
    return e ? interpret_bool(e->value) : def;
}

size_t args_config_list(const struct args *a, const char *name, const char *section,
                        const char ***out)
{
    const struct arg_def *def = find_def(a, name, strlen(name));
    CHECK_ALWAYS(def != NULL);
    const char **v = xmalloc((a->n + 1) * sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct entry *e = &a->e[i];
        if (e->def == def && e->src == SRC_CONFIG && strcmp(e->section, section) == 0) {
            v[n++] = e->value; /* negations too: the caller counts and skips them */
        }
    }
    *out = v;
    return n;
}

size_t args_get_list(const struct args *a, const char *name, const char ***out)
{
    const struct arg_def *def = find_def(a, name, strlen(name));
    CHECK_ALWAYS(def != NULL);
    const char **v = xmalloc((a->n + 1) * sizeof(*v));
    size_t n = 0;
    bool negated = false;
    for (size_t i = 0; i < a->n; i++) {
        if (a->e[i].def != def || a->e[i].src != SRC_CMDLINE) {
            continue;
        }
        if (a->e[i].negated) {
            n = 0;
            negated = true;
        } else {
            v[n++] = a->e[i].value;
        }
    }
    bool main_chain = strcmp(a->chain, "main") == 0;
    for (int pass = 0; pass < 2 && !negated; pass++) {
        /* pass 0: the chain's section; pass 1: the top level. */
        if (pass == 1 && !main_chain && (def->flags & ARG_NETWORK_ONLY)) {
            break;
        }
        size_t start = n;
        for (size_t i = 0; i < a->n; i++) {
            const struct entry *e = &a->e[i];
            if (e->def != def || e->src != SRC_CONFIG) {
                continue;
            }
            if (pass == 0 ? strcmp(e->section, a->chain) != 0 : e->section[0] != 0) {
                continue;
            }
            if (e->negated) {
                n = start;
            } else {
                v[n++] = e->value;
            }
        }
    }
    *out = v;
    return n;
}

/* The values in effect for def (every value of a multi-value option; the one that wins
 * otherwise; none when negated). *out is allocated; the strings are borrowed. */
static size_t effective_values(const struct args *a, const struct arg_def *def,
                               const char ***out)
{
    if (def->flags & ARG_MULTI) {
        return args_get_list(a, def->name, out);
    }
    const struct entry *e = lookup_in(a, def, a->chain);
    *out = xmalloc(sizeof(**out));
    if (e && !e->negated) {
        (*out)[0] = e->value;
        return 1;
    }
    return 0;
}

int args_validate(const struct args *a, char *err, size_t err_len)
{
    for (size_t d = 0; d < a->n_defs; d++) {
        const struct arg_def *def = &a->defs[d];
        if (def->flags & ARG_IGNORED) {
            continue; /* nothing reads the value: Core's bitcoind would not check it either */
        }
        const char **vals;
        size_t n = effective_values(a, def, &vals);
        int rc = RC_OK;
        for (size_t i = 0; i < n && rc == RC_OK; i++) {
            int64_t iv;
            if ((def->flags & ARG_INT) && args_parse_int64(vals[i], &iv) != RC_OK) {
                snprintf(err, err_len, "Invalid value for -%s: '%s' (expected an integer)",
                         def->name, vals[i]);
                rc = RC_INVALID;
            } else if ((def->flags & ARG_BOOL) &&
                       (args_parse_int64(vals[i], &iv) != RC_OK && vals[i][0] != 0)) {
                snprintf(err, err_len, "Invalid value for -%s: '%s' (expected 0 or 1)", def->name,
                         vals[i]);
                rc = RC_INVALID;
            }
        }
        free(vals);
        if (rc != RC_OK) {
            return rc;
        }
    }
    for (size_t d = 0; d < a->n_defs; d++) {
        const struct arg_def *def = &a->defs[d];
        if (def->flags & ARG_ONLY_OFF) {
            const char **vals;
            size_t n = effective_values(a, def, &vals);
            int on = 0;
            for (size_t i = 0; i < n && !on; i++) {
                int64_t iv;
                on = args_parse_int64(vals[i], &iv) != RC_OK || iv != 0;
            }
            free(vals);
            if (on) {
                snprintf(err, err_len, "-%s: not implemented yet (only -%s=0 is accepted)",
                         def->name, def->name);
                return RC_INVALID;
            }
        }
        if ((def->flags & ARG_NOT_IMPL) && lookup_in(a, def, a->chain)) {
            snprintf(err, err_len, "-%s: not implemented yet", def->name);
            return RC_INVALID;
        }
    }
    return RC_OK;
}

size_t args_ignored(const struct args *a, struct arg_ignored **out)
{
    struct arg_ignored *v = xmalloc((a->n_defs + 1) * sizeof(*v));
    size_t n = 0;
    for (size_t d = 0; d < a->n_defs; d++) {
        const struct arg_def *def = &a->defs[d];
        if ((def->flags & ARG_IGNORED) && lookup_in(a, def, a->chain)) {
            v[n].name = def->name;
            v[n].reason = ignored_reason(def);
            n++;
        }
    }
    *out = v;
    return n;
}

size_t args_warning_count(const struct args *a)
{
    return a->n_warnings;
}

const char *args_warning(const struct args *a, size_t i)
{
    CHECK_ALWAYS(i < a->n_warnings);
    return a->warnings[i];
}

enum args_warning_kind args_warning_kind(const struct args *a, size_t i)
{
    CHECK_ALWAYS(i < a->n_warnings);
    return a->warning_kind[i];
}

/* value as a JSON string (Core's UniValue::write of a string), into out. */
static void json_quote(char *out, size_t out_len, const char *value)
{
    size_t k = 0;
    if (out_len < 3) {
        return;
    }
    out[k++] = '"';
    for (const unsigned char *p = (const unsigned char *)value; *p && k + 8 < out_len; p++) {
        if (*p == '"' || *p == '\\') {
            out[k++] = '\\';
            out[k++] = (char)*p;
        } else if (*p < 0x20) {
            k += (size_t)snprintf(out + k, out_len - k, "\\u%04x", *p);
        } else {
            out[k++] = (char)*p;
        }
    }
    out[k++] = '"';
    out[k] = 0;
}

static int entry_order(const void *x, const void *y)
{
    const struct entry *a = *(const struct entry *const *)x, *b = *(const struct entry *const *)y;
    int c = strcmp(a->section, b->section);
    if (!c) {
        c = strcmp(a->def->name, b->def->name);
    }
    return c ? c : (a < b ? -1 : a > b);
}

void args_log(const struct args *a)
{
    const struct entry **v = xmalloc((a->n + 1) * sizeof(*v));
    for (int src = SRC_CONFIG; ; src = SRC_CMDLINE) {
        size_t n = 0;
        for (size_t i = 0; i < a->n; i++) {
            if (a->e[i].src == src) {
                v[n++] = &a->e[i];
            }
        }
        qsort(v, n, sizeof(*v), entry_order);
        for (size_t i = 0; i < n; i++) {
            size_t vcap = 6 * strlen(v[i]->value) + 8; /* \u00xx for each byte at worst */
            char *val = xmalloc(vcap);
            if (v[i]->def->flags & ARG_SENSITIVE) {
                snprintf(val, vcap, "****");
            } else if (v[i]->negated) {
                snprintf(val, vcap, "false");
            } else {
                json_quote(val, vcap, v[i]->value);
            }
            LOG_INFO("%s %s%s%s%s=%s", src == SRC_CONFIG ? "Config file arg:" : "Command-line arg:",
                     v[i]->section[0] ? "[" : "", v[i]->section, v[i]->section[0] ? "] " : "",
                     v[i]->def->name, val);
            free(val);
        }
        if (src == SRC_CMDLINE) {
            break;
        }
    }
    free(v);
}

/* Prints text (up to an ARG_REASON) wrapped at 79 columns with a 7-space indent, like Core's
 * FormatParagraph. */
static void print_paragraph(FILE *f, const char *text)
{
    const int indent = 7, width = 79;
    int col = indent;
    fprintf(f, "%*s", indent, "");
    const char *p = text;
    const char *end = text + strcspn(text, ARG_REASON_SEP);
    while (p < end) {
        const char *w = p;
        while (w < end && *w != ' ') {
            w++;
        }
        int wl = (int)(w - p);
        if (col > indent && col + 1 + wl > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", wl, p);
        col += wl;
        p = w < end ? w + 1 : w;
    }
    fputc('\n', f);
}

void args_print_help(const struct args *a, FILE *f)
{
    for (size_t d = 0; d < a->n_defs; d++) {
        const char *cat = a->defs[d].category;
        bool seen = false, visible = false;
        for (size_t e = 0; e < d; e++) {
            if (strcmp(a->defs[e].category, cat) == 0) {
                seen = true;
            }
        }
        for (size_t e = d; e < a->n_defs && !seen && !visible; e++) {
            visible = strcmp(a->defs[e].category, cat) == 0 && !(a->defs[e].flags & ARG_HIDDEN);
        }
        if (seen || !visible) {
            continue;
        }
        fprintf(f, "%s:\n\n", cat);
        for (size_t i = d; i < a->n_defs; i++) {
            const struct arg_def *def = &a->defs[i];
            if (strcmp(def->category, cat) != 0 || (def->flags & ARG_HIDDEN)) {
                continue;
            }
            fprintf(f, "  -%s%s\n", def->name, def->param);
            print_paragraph(f, def->help);
            fputc('\n', f);
        }
    }
}

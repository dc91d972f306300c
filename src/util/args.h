/* Options from the command line and the config file, with bitcoind's names and rules.
 *
 * A program describes the options it knows in a table of struct arg_def. Parsing records
 * every occurrence with where it came from; lookups apply Bitcoin Core's precedence:
 *   1. the command line (the last occurrence wins; -nofoo negates),
 *   2. the config file section of the selected chain ([regtest], ...; first one wins),
 *   3. the config file's top level (first one wins) -- except that options flagged
 *      ARG_NETWORK_ONLY are ignored there on any chain but main, with a warning
 *      ("Config setting for -rpcport only applied on regtest network when in [regtest]
 *      section.").
 * Multi-value options (ARG_MULTI) collect the values of all three levels in that order;
 * a negation on the command line drops everything before it and the config file values.
 *
 * Syntax: -foo=value, -foo (for a flag: 1; for a value: ""), -nofoo (0, negated),
 * --foo also accepted; config lines "foo=value", "nofoo=1", "regtest.foo=value",
 * "[section]", "# comment". A negation given a false value (-nofoo=0, nofoo=false) is a
 * double negative: the option is set to 1, with a warning, as Core's InterpretValue.
 */
#ifndef BITNODE_UTIL_ARGS_H
#define BITNODE_UTIL_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum arg_flags {
    ARG_BOOL = 1u << 0,         /* a flag: -foo, -nofoo, -foo=0|1 */
    ARG_STRING = 1u << 1,       /* takes a value */
    ARG_INT = 1u << 2,          /* takes an integer value (checked by args_validate) */
    ARG_MULTI = 1u << 3,        /* may repeat; every value is kept */
    ARG_NETWORK_ONLY = 1u << 4, /* in the config file only honoured inside the chain's section */
    ARG_NOT_IMPL = 1u << 5,     /* parsed and checked, but args_validate refuses it */
    ARG_CMDLINE_ONLY = 1u << 6, /* refused in the config file (-conf) */
    ARG_HIDDEN = 1u << 7,       /* left out of -help */
    ARG_ONLY_OFF = 1u << 8,     /* accepted only as 0 / -noX (what bitnode does anyway: e.g.
                                   -listen=0, -prune=0); args_validate refuses other values */
    ARG_IGNORED = 1u << 9,      /* accepted with any value; bitnode does not do this. The help
                                   text ends with ARG_REASON("why"): args_ignored() reports the
                                   reason for one log line, -help leaves it out */
    ARG_SENSITIVE = 1u << 10,   /* a secret: args_log writes "****" for its value */
    ARG_NO_NEGATION = 1u << 11, /* Core's DISALLOW_NEGATION: -nofoo is refused ("Negating of
                                   -datadir is meaningless and therefore forbidden") */
    ARG_NO_ELISION = 1u << 12,  /* Core's DISALLOW_ELISION: -foo without "=value" is refused
                                   ("Can not set -proxy with no value. ...") */
};

/* The end of an ARG_IGNORED option's help text: Core's help, then why bitnode ignores the
 * option or what it does instead, in words that follow "Ignoring -keypool: ":
 *     "Set key pool size to <n> (default: 1000)" ARG_REASON("bitnode has no wallet")
 * The reason rides in the help string so that every option table keeps its five columns. */
#define ARG_REASON_SEP "\x1f"
#define ARG_REASON(why) ARG_REASON_SEP why

struct arg_def {
    const char *name;     /* without the dash: "rpcport" */
    unsigned flags;       /* enum arg_flags */
    const char *category; /* -help section title */
    const char *param;    /* shown after the name in -help: "=<port>", or "" */
    const char *help;     /* one paragraph */
};

/* The -help section titles the programs' option tables use (src/bitnoded-options.c). */
#define ARGS_CAT_OPTIONS "Options"
#define ARGS_CAT_CHAIN "Chain selection options"
#define ARGS_CAT_CONN "Connection options"
#define ARGS_CAT_DEBUG "Debugging/Testing options"
#define ARGS_CAT_RPC "RPC server options"
#define ARGS_CAT_CLI "RPC client options"
#define ARGS_CAT_WALLET "Wallet options"
#define ARGS_CAT_ZMQ "ZeroMQ notification options"
#define ARGS_CAT_RELAY "Node relay options"
#define ARGS_CAT_MINING "Block creation options"

struct args;

/** Creates an empty option set over defs (borrowed; must outlive the set). Chain "main".
 *  A table that breaks the flags' rules (ARG_IGNORED without ARG_REASON or with
 *  ARG_NOT_IMPL / ARG_ONLY_OFF) is a bug: CHECK_ALWAYS. */
struct args *args_new(const struct arg_def *defs, size_t n_defs);
/** Frees a (NULL: no-op). */
void args_free(struct args *a);

/** Parses argv[1..argc-1]. Options come first; the first argument that does not start with
 *  '-' ends them: its index goes to *first_positional (argc if none), or it is an error if
 *  first_positional is NULL.
 *  Returns: 0, or RC_INVALID with err filled in Core's words: "Invalid parameter -foo=1" (the
 *  argument as given), or the refusal of ARG_NO_NEGATION / ARG_NO_ELISION. */
int args_parse_cmdline(struct args *a, int argc, char *const *argv, int *first_positional,
                       char *err, size_t err_len);
/** Parses config file text (len bytes; need not be NUL-terminated), as Core's
 *  ReadConfigStream: first every line's syntax (the first bad line is the error: "parse error
 *  on line 3: ..."), then each option in order. filename is used in the unrecognized-section
 *  warnings. Unknown keys are an error ("Invalid configuration value foo"; inside [regtest],
 *  "... regtest.foo", as Core) unless ignore_unknown (what bitcoind and bitcoin-cli do), in
 *  which case each is skipped with a log-only warning ("Ignoring unknown configuration value
 *  regtest.foo"). conf= is refused with Core's words; a reindex key adds Core's log-only
 *  warning about reindexing on every start.
 *  Returns: 0, or RC_INVALID with err filled. */
int args_read_config(struct args *a, const char *text, size_t len, const char *filename,
                     bool ignore_unknown, char *err, size_t err_len);
/** Picks the chain from -chain=<name> and -regtest / -testnet / -testnet4 / -signet (command
 *  line and config top level) and makes its section active; adds the unsuitable-section
 *  warnings. Returns 0, or RC_INVALID with err filled (two chains, unknown chain name). */
int args_select_chain(struct args *a, char *err, size_t err_len);
/** Returns the selected chain name ("main" until args_select_chain). Borrowed. */
const char *args_chain(const struct args *a);

/** Returns true if name (no dash) has an effective setting (negated counts as set). */
bool args_is_set(const struct args *a, const char *name);
/** Returns true if the effective setting of name is a negation (-nofoo). */
bool args_is_negated(const struct args *a, const char *name);
/** Returns the effective value of name ("0" if negated), or def if unset. Borrowed. */
const char *args_get(const struct args *a, const char *name, const char *def);
/** Returns the effective value as an integer (args_validate has checked it), or def. */
int64_t args_get_int(const struct args *a, const char *name, int64_t def);
/** Returns the effective value as a boolean ("" and non-zero numbers are true), or def. */
bool args_get_bool(const struct args *a, const char *name, bool def);
/** Returns the values of a multi-value option, in precedence order; *out gets a new array
 *  (caller frees it; the strings are borrowed from a). Returns the count. */
size_t args_get_list(const struct args *a, const char *name, const char ***out);
/** Every value of name read from config files in section ("" the top level), in the order
 *  read (a negation's as "0"): -includeconf's files, and those an included file names.
 *  *out (the pointers borrowed from a) is freed by the caller. */
/** true when name (maybe "section.name", maybe "noname") is an option of the table. */
bool args_has_option(const struct args *a, const char *name);
/** The chain the options name so far ("main" when none; NULL when several), without
 *  selecting it (args_select_chain does, once every file is read). */
const char *args_peek_chain(const struct args *a);
size_t args_config_list(const struct args *a, const char *name, const char *section,
                        const char ***out);

/** Checks every effective value: integers parse, flags are 0/1, options marked ARG_ONLY_OFF
 *  are off, options marked ARG_NOT_IMPL are not given ("-blocknotify: not implemented yet").
 *  ARG_IGNORED options pass whatever their value. Returns 0 or RC_INVALID with err. */
int args_validate(const struct args *a, char *err, size_t err_len);

/* An option that is set but that bitnode ignores (ARG_IGNORED), and why. */
struct arg_ignored {
    const char *name;   /* without the dash: "keypool" */
    const char *reason; /* "bitnode has no wallet" */
};

/** Lists the ARG_IGNORED options that have an effective setting (as args_is_set: the command
 *  line, the chain's section, the top level unless network-only; a negation counts), in
 *  table order, for the daemon to log one line each: "Ignoring -%s: %s". Call it after
 *  args_select_chain. *out gets a new array (caller frees it; the strings are borrowed from
 *  the table). Returns the count. */
size_t args_ignored(const struct args *a, struct arg_ignored **out);

/* How Core reports a warning of the options: */
enum args_warning_kind {
    ARGS_WARNING_INIT,    /* InitWarning: "Warning: <text>" on stderr, and the log */
    ARGS_WARNING_LOG,     /* LogWarning only: the double negative, an unknown config key,
                             reindex in the config file */
    ARGS_WARNING_SECTION, /* "<file>:<line> Section [x] is not recognized.": Core joins them,
                             one a line, into one InitWarning */
};

/** Warnings collected while parsing, in the order found. Borrowed strings. */
size_t args_warning_count(const struct args *a);
const char *args_warning(const struct args *a, size_t i);
enum args_warning_kind args_warning_kind(const struct args *a, size_t i);

/** Logs every option as Core's LogArgs does: "Config file arg: [section] name=<json>" for
 *  each config value (sections in name order, the top level first), then "Command-line arg:
 *  name=<json>" for each on the command line, names in order; a negation is false, a
 *  sensitive option's value "****". */
void args_log(const struct args *a);

/** Prints the options that are not hidden, grouped by category (a category with none left
 *  out), to f. */
void args_print_help(const struct args *a, FILE *f);

/** Parses a decimal integer that must fill the whole string. Returns 0 or RC_INVALID. */
int args_parse_int64(const char *s, int64_t *out);

#endif

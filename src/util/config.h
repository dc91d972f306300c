/* The config files on disk, as Core's ArgsManager::ReadConfigFiles reads them: the file -conf
 * names (bitcoin.conf in the datadir by default; none with -noconf), then the files its
 * includeconf= lines name. Parsing a file's text is util/args.c's (args_read_config).
 */
#ifndef BITNODE_UTIL_CONFIG_H
#define BITNODE_UTIL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct args;

/* Core's name for the config file. */
#define CONFIG_FILENAME "bitcoin.conf"
/* bitnode's old name, read when the datadir has no bitcoin.conf and no -conf is given. */
#define CONFIG_FILENAME_OLD "bitnode.conf"

/** The config file the command line names for datadir (Core's GetConfigFilePath): -conf's
 *  value (default bitcoin.conf; an empty value too), relative to datadir unless absolute.
 *  Returns NULL with -noconf, else a new string (caller frees). */
char *config_file_path(const struct args *a, const char *datadir);

/** Reads the config file and its includes into a, as Core's ReadConfigFiles:
 *  - the file (config_file_path; none with -noconf) must not be a directory ("Config file
 *    \"<path>\" is a directory."); given with -conf it must open ("specified config file
 *    \"<path>\" could not be opened."); without -conf a missing bitcoin.conf is no error, and
 *    bitnode.conf is read instead when the datadir has one;
 *  - when the option table has includeconf and the command line does not negate it, the
 *    includeconf= values of the chain's section and then of the top level, relative to
 *    datadir ("Included config file \"<path>\" is a directory.", "Failed to include
 *    configuration file <name>"); "Included configuration file <name>" is logged for each,
 *    and an includeconf= found in an included file is ignored with Core's warning on stderr;
 *  - then -datadir, which the file may have set, must be a directory ("specified data
 *    directory \"<dir>\" does not exist.").
 *  Unknown keys are errors unless ignore_unknown (args_read_config).
 *  Returns: 0 with *read_path the file read (NULL if none; caller frees), or RC_INVALID with
 *           err filled in Core's words, which its callers put after "Error reading
 *           configuration file: ".
 *  In:      datadir: the datadir before the file is read (-datadir or the default).
 */
int config_read_files(struct args *a, const char *datadir, bool ignore_unknown, char **read_path,
                      char *err, size_t err_len);

/** Core's check of a datadir holding a bitcoin.conf that is not the file read (InitConfig):
 *  with -noconf, the log line 'Data directory "<dir>" contains a "bitcoin.conf" file which is
 *  explicitly ignored using -noconf.'; when another file was read (from -conf, or from the
 *  datadir before its datadir= moved it), Core's error, or with -allowignoredconf the same
 *  text as a logged warning.
 *  Returns: 0, or RC_INVALID with err filled (the text without Core's "Error: ").
 *  In:      datadir: the datadir in use; orig_datadir: the one the config file was looked
 *           for in; read_path: config_read_files' *read_path (NULL if none was read).
 */
int config_check_ignored(const struct args *a, const char *datadir, const char *orig_datadir,
                         const char *read_path, char *err, size_t err_len);

#endif

/* settings.json (Core's dynamic settings file, -settings, -nosettings): read at start-up and
 * written back with Core's "_warning_" key first. bitnode has no wallet or GUI, the only
 * writers of Core's settings, so its values change nothing here; they are kept as they are
 * (unknown ones with Core's warning), so that a datadir moved between bitcoind and bitnoded
 * keeps them. */
#ifndef BITNODE_NODE_SETTINGS_H
#define BITNODE_NODE_SETTINGS_H

#include <stddef.h>

#include "util/args.h"

/** Reads the settings file of net_dir (-settings, relative to it; none with -nosettings),
 *  logs each value ("Setting file arg: key = <json>") and warns about keys that are not
 *  options, then writes it back. Returns 0, or RC_INVALID with err holding Core's words
 *  ("Settings file could not be read:\n- <why>"), or RC_IO ("... could not be written"). */
int node_settings_init(const struct args *a, const char *net_dir, char *err, size_t err_len);

#endif

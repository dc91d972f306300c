/* The seed nodes (net/seeds.h): the fixed ones' data is generated into seeds_data.h; the
 * DNS seeds are Core's, per network. */
#include "net/seeds.h"

#include <string.h>

#include "net/seeds_data.h"

int net_fixed_seeds(const char *chain, const uint8_t **data, size_t *len, size_t *count)
{
    for (size_t i = 0; i < sizeof(seed_tables) / sizeof(seed_tables[0]); i++) {
        if (strcmp(chain, seed_tables[i].chain) == 0) {
            *data = seed_tables[i].data;
            *len = seed_tables[i].len;
            *count = seed_tables[i].count;
            return 1;
        }
    }
    *data = NULL;
    *len = *count = 0;
    return 0;
}

static const char *const dns_main[] = {
    "dnsseed.bluematt.me.",   "seed.bitcoin.jonasschnelli.ch.", "seed.btc.petertodd.net.",
    "seed.bitcoin.sprovoost.nl.", "dnsseed.emzy.de.",         "seed.bitcoin.wiz.biz.",
    "seed.mainnet.achownodes.xyz.", NULL,
};
static const char *const dns_test[] = {
    "testnet-seed.bitcoin.jonasschnelli.ch.", "seed.tbtc.petertodd.net.",
    "testnet-seed.bluematt.me.", "seed.testnet.achownodes.xyz.", NULL,
};
static const char *const dns_testnet4[] = {
    "seed.testnet4.bitcoin.sprovoost.nl.", "seed.testnet4.wiz.biz.", NULL,
};
static const char *const dns_signet[] = {
    "seed.signet.bitcoin.sprovoost.nl.", "seed.signet.achownodes.xyz.", NULL,
};
static const char *const dns_none[] = {NULL};

const char *const *net_dns_seeds(const char *chain)
{
    if (strcmp(chain, "main") == 0) {
        return dns_main;
    }
    if (strcmp(chain, "test") == 0) {
        return dns_test;
    }
    if (strcmp(chain, "testnet4") == 0) {
        return dns_testnet4;
    }
    if (strcmp(chain, "signet") == 0) {
        return dns_signet;
    }
    return dns_none;
}

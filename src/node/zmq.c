/* The ZMQ publishers' wiring (zmq.h). */
#include "node/zmq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notify/zmq.h"
#include "util/args.h"
#include "util/log.h"
#include "util/rc.h"
#include "util/xmalloc.h"

static const char *const OPTS[NOTIFY_ZMQ_TOPICS] = {
    "zmqpubhashblock", "zmqpubhashtx", "zmqpubrawblock", "zmqpubrawtx", "zmqpubsequence"};

/* Core's SplitHostPort succeeds: no port separator (none, or an IPv6 address's several
 * colons), or a port after it in 1..65535. */
static int host_port_ok(const char *s)
{
    const char *colon = strrchr(s, ':');
    if (!colon) {
        return 1;
    }
    int bracketed = s[0] == '[' && colon > s && colon[-1] == ']';
    int multi = colon > s && memchr(s, ':', (size_t)(colon - s)) != NULL;
    if (colon != s && !bracketed && multi) {
        return 1;
    }
    const char *p = colon + 1;
    char *end = NULL;
    long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
    return end && !*end && v >= 1 && v <= 65535;
}

int node_zmq_check(const struct args *a, char *err, size_t err_len)
{
    for (int t = 0; t < NOTIFY_ZMQ_TOPICS; t++) {
        const char **v;
        size_t n = args_get_list(a, OPTS[t], &v);
        for (size_t i = 0; i < n; i++) {
            if (!host_port_ok(v[i]) && strncmp(v[i], "unix:", 5) != 0) {
                snprintf(err, err_len, "Invalid port specified in -%s: '%s'", OPTS[t], v[i]);
                free(v);
                return RC_INVALID;
            }
        }
        free(v);
    }
    return RC_OK;
}

#ifdef ENABLE_ZMQ
/* The notifiers in Core's order: by topic, then as given. */
static size_t endpoints(const struct args *a, struct notify_zmq_endpoint **out)
{
    size_t n = 0;
    *out = NULL;
    for (int t = 0; t < NOTIFY_ZMQ_TOPICS; t++) {
        const char **v;
        size_t k = args_get_list(a, OPTS[t], &v);
        char hwm_opt[32];
        snprintf(hwm_opt, sizeof(hwm_opt), "%shwm", OPTS[t]);
        int64_t hwm = args_get_int(a, hwm_opt, 1000);
        for (size_t i = 0; i < k; i++) {
            *out = xrealloc(*out, (n + 1) * sizeof(**out));
            struct notify_zmq_endpoint *ep = &(*out)[n++];
            ep->topic = (enum notify_zmq_topic)t;
            /* Core's SetOutboundMessageHighWaterMark ignores a negative value. */
            ep->hwm = hwm < 0 || hwm > INT32_MAX ? 1000 : (int)hwm;
            if (strncmp(v[i], "unix:", 5) == 0) {
                ep->address = xmalloc(strlen(v[i]) + 2);
                sprintf(ep->address, "ipc://%s", v[i] + 5);
            } else {
                ep->address = xstrdup(v[i]);
            }
        }
        free(v);
    }
    return n;
}

int node_zmq_start(struct node_context *n)
{
    struct notify_zmq_endpoint *eps;
    size_t k = endpoints(n->args, &eps);
    int rc = RC_OK;
    if (k) {
        char err[512];
        if (notify_zmq_new(&n->zmq, eps, k, n->cs, err, sizeof(err)) != RC_OK) {
            LOG_WARN("zmq: %s; ZMQ notifications are off", err);
            n->zmq = NULL;
        } else if ((rc = notify_zmq_attach(n->zmq, n->cs, n->mempool)) != RC_OK) {
            notify_zmq_free(n->zmq);
            n->zmq = NULL;
        }
    }
    for (size_t i = 0; i < k; i++) {
        free(eps[i].address);
    }
    free(eps);
    return rc;
}

void node_zmq_stop(struct node_context *n)
{
    if (n->zmq) {
        notify_zmq_detach(n->zmq, n->cs);
        notify_zmq_free(n->zmq);
        n->zmq = NULL;
    }
}
#else
int node_zmq_start(struct node_context *n)
{
    for (int t = 0; t < NOTIFY_ZMQ_TOPICS; t++) {
        if (args_is_set(n->args, OPTS[t])) {
            LOG_WARN("-%s ignored: bitnode was built without ZMQ (--disable-zmq)", OPTS[t]);
        }
    }
    return RC_OK;
}

void node_zmq_stop(struct node_context *n)
{
    (void)n;
}
#endif

/* redis_input: reads samples from Redis, pub/sub or streams.
 *
 * A small nonblocking client driven by the sd-event loop. hiredis provides
 * the RESP reply parser and command formatting; connection handling is ours
 * so that every state is explicit: DISCONNECTED (waiting out the backoff),
 * CONNECTING, HANDSHAKE (AUTH, SELECT, SUBSCRIBE / XGROUP CREATE) and
 * READY. Any error, a connect or handshake timeout, or a connection silent
 * for two health-check intervals leads back to DISCONNECTED with a
 * reconnect after an exponential, capped backoff. It never gives up.
 *
 * Stream mode acknowledges entries only after their lines were written to
 * the trace log files; while the disk refuses writes it stops reading, so
 * the entries wait safely in Redis. */
#ifndef ARCLAMP_LOG_REDIS_INPUT_H
#define ARCLAMP_LOG_REDIS_INPUT_H

#include <stdint.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "ingest.h"

struct redis_input;

/* Starts connecting; returns NULL if cfg has no redis section. */
struct redis_input *redis_input_start(sd_event *loop, const struct config *cfg,
                                      struct ingest *ingest, struct stats *stats);
/* Sends what is queued (acknowledgements) and closes the connection. */
void redis_input_stop(struct redis_input *ri);
/* "connected", "connecting", "disconnected (retry in 3.2s)" ... */
const char *redis_input_state(struct redis_input *ri);

#endif

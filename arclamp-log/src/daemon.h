/* daemon: arclamp-log's life cycle around the sd-event loop.
 *
 * Opens the inputs, runs the loop, and does what systemd expects of a
 * Type=notify service: READY=1 once the inputs are open, STATUS= with live
 * counts, WATCHDOG=1 from the loop itself (sd_event_set_watchdog), reload on
 * SIGHUP (RELOADING=1 ... READY=1) and a final flush on SIGTERM/SIGINT
 * (STOPPING=1). */
#ifndef ARCLAMP_LOG_DAEMON_H
#define ARCLAMP_LOG_DAEMON_H

#include "config.h"

/* Runs until SIGTERM/SIGINT. Takes ownership of cfg. Returns an exit code. */
int daemon_run(const char *config_path, struct config *cfg);

#endif

/* fpm_worker: what a php-fpm worker holds leaves it before it stops.
 *
 * A php-fpm worker keeps the request tiers' aggregates until a request
 * ends past excimer.tiers_flush_interval (nothing of PHP runs between
 * requests), and its sender holds samples for excimer.arclamp_send_delay.
 * A pool stops with SIGTERM — systemctl stop sends it to every process of
 * the unit, the master's fast shutdown to its workers, followed at once by
 * SIGKILL under Debian's default process_control_timeout = 0 — and a worker
 * dies of it without the module shutdown that delivers what it holds: a
 * worker that had served 3 requests sent no tier line. (SIGQUIT, php-fpm's
 * graceful stop, ends with the module shutdown.) So in php-fpm workers,
 * and only there, a thread of the extension:
 *  - flushes the aggregates of a worker that stayed idle IDLE_FLUSH seconds
 *    after a request, at once (no send delay): a pool stopped after its
 *    traffic has delivered everything already;
 *  - on SIGTERM, whose handler is registered through the engine's signal
 *    handling at every request's start: between requests the handler wakes
 *    the thread, which hands the aggregates over and delivers the sender's
 *    queue, and waits for it at most excimer.arclamp_timeout and a little;
 *    during a request (MediaWiki goes on with deferred updates after its
 *    response) the request may go on for as long, and its end delivers;
 *    then SIGTERM's default action ends the process, as before (a request
 *    that has not ended by then ends with it).
 * The aggregates belong to the PHP thread during a request: it holds the
 * worker's lock from the request's start to its end, and the thread only
 * ever tries the lock. */
#ifndef EXCIMER_FPM_WORKER_H
#define EXCIMER_FPM_WORKER_H

#include <stdbool.h>

/* Module start: `flush(now)` queues what the process holds (tiers'
 * aggregates), called on the worker's thread between requests; `now`:
 * without the sender's delay. */
void excimer_fpm_worker_module_init(void (*flush)(bool now));
/* Module shutdown: the handler and the thread gone (they are module code). */
void excimer_fpm_worker_module_shutdown(void);
/* Request start and end; the first request of a php-fpm worker starts it all. */
void excimer_fpm_worker_request_start(void);
void excimer_fpm_worker_request_end(void);

#endif

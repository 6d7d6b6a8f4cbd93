/* sender: delivers Arc Lamp messages from a thread of its own, so that a
 * request never waits for Redis or a socket.
 *
 * The PHP thread hands over a job — a target and the request's lines, in
 * one malloc()ed buffer — and goes on; the sender thread (one per process,
 * started at the first job) delivers jobs in order through transport.c.
 * Zero-code jobs wait up to excimer.arclamp_send_delay (1 s) for others:
 * the thread wakes once for a batch, not once per request, and a batch's
 * lines for one target go in as few messages and one round trip (every
 * thread wakeup costs CPU, which on virtual machines is far from nothing:
 * README, "How fast"). A batch is sent at once when it reaches
 * SENDER_BATCH_BYTES. Each job has a deadline: its send time plus
 * excimer.arclamp_timeout; a job still queued at its deadline fails as a
 * timeout without being tried, and at most SENDER_QUEUE_MAX bytes wait:
 * past that a job is dropped and counted as "backlog". So a dead or slow
 * Redis costs a request nothing, and the process a bounded amount of
 * memory.
 *
 * excimer_arclamp_send() uses the same queue and waits for its own job (at
 * most the timeout): the process keeps one connection, owned by one thread.
 *
 * Fork: the child of a pcntl_fork() has no sender thread (only the forking
 * thread survives a fork); its copy of the parent's queue is dropped — the
 * parent delivers those lines — and its copy of the connection is closed
 * without a byte on the wire. The child's first job starts its own thread
 * and connection, so parent and child never share a socket.
 *
 * Shutdown (MSHUTDOWN: a CLI script's end, a php-fpm worker's exit): what
 * is queued is still delivered, within its deadlines, then the thread ends.
 *
 * Failures are counted (sender_stats). The first failure after success, and
 * the first success after failures, are also kept as a one-line message for
 * the PHP thread to write to PHP's error log (sender_take_news): once per
 * change, not per request. */
#ifndef EXCIMER_SENDER_H
#define EXCIMER_SENDER_H

#include <stddef.h>

#include "transport.h"

/* Bytes of lines waiting for the sender thread at most. */
#define SENDER_QUEUE_MAX (8 * 1024 * 1024)
/* A batch this large goes at once, however young. */
#define SENDER_BATCH_BYTES (256 * 1024)

/* Registers the fork handlers (MINIT). */
void sender_module_init(void);
/* Delivers what is queued (each job within its deadline) and stops the
 * thread (MSHUTDOWN). */
void sender_module_shutdown(void);

/* Queues `nlines` lines (`text`: `len` bytes, lines joined by '\n', no
 * empty line; malloc()ed, owned by the sender from now on) for `t`, to be
 * sent within `delay` seconds, together with what other requests queued
 * meanwhile, and delivered within `timeout` seconds after that. Never
 * waits. */
void sender_submit(const transport_target *t, char *text, size_t len, size_t nlines,
                   double timeout, double delay);
/* The same, then waits until the job is done or `timeout` has passed;
 * returns the lines delivered (0 when the wait ran out). */
long sender_send_and_wait(const transport_target *t, char *text, size_t len, size_t nlines,
                          double timeout);

/* A copy of the counters, and the lines queued right now. */
void sender_stats(transport_stats *out, long *queued);
/* A message about a change (failing / delivering again) not yet logged:
 * copied into buf and forgotten; 0 when there is none. *is_failure tells
 * which. Cheap when there is nothing. */
int sender_take_news(char *buf, size_t len, int *is_failure);

#endif

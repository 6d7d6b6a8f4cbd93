<?php

/** @generate-function-entries */

/**
 * Names the kind of this request (e.g. "view", "edit", "api:query"): its
 * tier times are aggregated under it. 1-255 bytes of UTF-8; otherwise a
 * warning and false. Requests that never call it are "undefined".
 */
function excimer_tiers_set_identity(string $identity): bool {}

/**
 * A token standing for this request (its identity, whether it is traced,
 * an id), for the application to pass on to another process (a job's
 * parameters, a header) that calls excimer_tiers_continue() with it.
 */
function excimer_tiers_request_id(): string {}

/**
 * Attributes what this process does from now on to the request the token
 * came from: its identity, and its sampling decision. The time so far is
 * closed under the previous identity. A malformed token: a warning, false.
 */
function excimer_tiers_continue(string $token): bool {}

/**
 * This process's aggregates since it started or last flushed:
 * [identity => [tier => ['calls' => int, 'total_us' => float,
 *   'p50_us' => float, 'p90_us' => float, 'p99_us' => float]]]
 */
function excimer_tiers_stats(): array {}

/**
 * The state of request tiers in this process: whether they are enabled,
 * tracing this request, paused by the circuit breaker (trips, resumes,
 * the last trip's reason), the switch, the configured tiers.
 */
function excimer_tiers_status(): array {}

/**
 * Hands this process's aggregates to the transport now (they go every
 * excimer.tiers_flush_interval seconds anyway) and starts new ones.
 * Returns the number of lines handed over (0: nothing to send or no
 * target).
 */
function excimer_tiers_flush(): int {}

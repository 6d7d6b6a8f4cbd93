<?php

/** @generate-class-entries */

/**
 * The PHP API of class ExcimerProfiler (src/excimer_profiler.c).
 * src/excimer_profiler_arginfo.h is generated
 * from this file by scripts/gen-arginfo (php-src's build/gen_stub.php).
 */

/**
 * A sampling profiler. While it runs, a timer expires every period; at the
 * engine's next safe point (a loop back-edge, a function call or return)
 * the current PHP stack is recorded in the profiler's ExcimerLog together
 * with the number of expirations it stands for. The profiler stops when it
 * is destroyed.
 *
 */
class ExcimerProfiler
{
    /**
     * The sampling period in seconds (default 0.1). Takes effect at the
     * next start(); a negative value is taken as 0. Also picks a new random
     * delay before the first sample, in [0, period), so that processes
     * started together do not sample in step; the extension's own random
     * generator is used, never mt_rand(), whose seeded sequence therefore
     * does not move.
     *
     * @param float $period
     * @return void
     */
    public function setPeriod($period) {}

    /**
     * The clock: EXCIMER_REAL (wall clock, the default) or EXCIMER_CPU (CPU
     * time of the calling thread). Any other value gives an E_WARNING
     * "Invalid event type" and keeps the current one. Takes effect at the
     * next start().
     *
     * @param int $event_type
     * @return void
     */
    public function setEventType($event_type) {}

    /**
     * How deep samples go (default: INI excimer.default_max_depth, 1000);
     * 0 = unlimited. Takes effect at once. As in Excimer, a deeper stack
     * keeps its leaf-most $max_depth + 1 frames under a fake root frame
     * "excimer_truncated" (file "excimer fake file", line 1); a negative
     * value keeps the leaf only.
     *
     * @param int $max_depth
     * @return void
     */
    public function setMaxDepth($max_depth) {}

    /**
     * Calls $callback with the full ExcimerLog whenever the log holds
     * $max_samples entries or more (never when $max_samples <= 0);
     * sampling continues into a fresh log.
     * The callback is also called by flush(), and when the profiler is
     * destroyed with a non-empty log. A non-callable $callback gives an
     * E_WARNING "flush callback is not callable: ..." and is ignored.
     *
     * @param callable $callback
     * @param int $max_samples
     * @return void
     */
    public function setFlushCallback($callback, $max_samples) {}

    /**
     * Removes the flush callback.
     *
     * @return void
     */
    public function clearFlushCallback() {}

    /**
     * Starts sampling, or restarts it when running: the first sample after
     * the random delay chosen by setPeriod(), then one every period. With
     * a period of 0 it gives an E_WARNING "Unable to start timer with a
     * value of zero duration and period" and does not start.
     *
     * @return void
     */
    public function start() {}

    /**
     * Stops sampling; ticks not yet recorded are discarded. Does nothing
     * when not running.
     *
     * @return void
     */
    public function stop() {}

    /** The live log, which keeps growing while the profiler runs. */
    public function getLog(): ExcimerLog {}

    /**
     * Replaces the log with a new, empty one (same max depth and period)
     * and returns the old one, after passing it to the flush callback if
     * one is set.
     *
     * @return ExcimerLog
     */
    public function flush() {}
}

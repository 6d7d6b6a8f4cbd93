<?php

/**
 * The PHP API of class ExcimerProfiler (src/excimer_profiler.c).
 * src/excimer_profiler_arginfo.h mirrors this file (in the format of
 * php-src's build/gen_stub.php); change both together.
 */

/**
 * A sampling profiler. While it runs, a timer expires every period; at the
 * engine's next safe point (a loop back-edge, a function call or return)
 * the current PHP stack is recorded in the profiler's ExcimerLog together
 * with the number of expirations it stands for. The profiler stops when it
 * is destroyed.
 *
 * @not-serializable
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
     * @tentative-return-type
     */
    public function setPeriod(float $period): void {}

    /**
     * The clock: EXCIMER_REAL (wall clock, the default) or EXCIMER_CPU (CPU
     * time of the calling thread). Any other value gives an E_WARNING
     * "Invalid event type" and keeps the current one. Takes effect at the
     * next start().
     *
     * @tentative-return-type
     */
    public function setEventType(int $eventType): void {}

    /**
     * The number of frames kept per sample (default: INI
     * excimer.default_max_depth, 1000); 0 = unlimited. Takes effect at
     * once. A deeper stack keeps its leaf-most $maxDepth frames under a
     * fake root frame "excimer_truncated".
     *
     * @tentative-return-type
     */
    public function setMaxDepth(int $maxDepth): void {}

    /**
     * Calls $callback with the full ExcimerLog whenever the log holds
     * $maxSamples entries or more; sampling continues into a fresh log.
     * The callback is also called by flush(), and when the profiler is
     * destroyed with a non-empty log. A non-callable $callback gives an
     * E_WARNING "flush callback is not callable: ..." and is ignored.
     *
     * @param callable $callback function (ExcimerLog $log): void
     * @tentative-return-type
     */
    public function setFlushCallback($callback, int $maxSamples): void {}

    /**
     * Removes the flush callback.
     *
     * @tentative-return-type
     */
    public function clearFlushCallback(): void {}

    /**
     * Starts sampling, or restarts it when running: the first sample after
     * the random delay chosen by setPeriod(), then one every period. With
     * a period of 0 it gives an E_WARNING "Unable to start timer with a
     * value of zero duration and period" and does not start.
     *
     * @tentative-return-type
     */
    public function start(): void {}

    /**
     * Stops sampling; ticks not yet recorded are discarded. Does nothing
     * when not running.
     *
     * @tentative-return-type
     */
    public function stop(): void {}

    /** The live log, which keeps growing while the profiler runs. */
    public function getLog(): ExcimerLog {}

    /**
     * Replaces the log with a new, empty one (same max depth and period)
     * and returns the old one, after passing it to the flush callback if
     * one is set.
     *
     * @tentative-return-type
     */
    public function flush(): ExcimerLog {}
}

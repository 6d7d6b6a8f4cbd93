<?php

/** @generate-class-entries */

/**
 * The PHP API of class ExcimerLogEntry (src/excimer_log.c). The second half
 * of src/excimer_log_arginfo.h is generated
 * from this file by scripts/gen-arginfo (php-src's build/gen_stub.php).
 */

/**
 * One sample of an ExcimerLog. Entries are obtained from the log
 * (iteration, $log[$i]) and cannot be constructed by users. An entry keeps
 * its log alive, so it stays valid after the log variable is unset.
 *
 */
class ExcimerLogEntry
{
    /** Entries are created by ExcimerLog only. */
    final private function __construct() {}

    /**
     * When the sample was taken: seconds since the profiler was created
     * (monotonic clock).
     *
     * @return float
     */
    public function getTimestamp() {}

    /**
     * The number of timer events this sample stands for: 1, plus timer
     * overruns, plus ticks merged while the engine reached no safe point
     * (e.g. during a long internal call), plus later samples of the same
     * stack folded into it at excimer.max_log_entries.
     *
     * @return int
     */
    public function getEventCount() {}

    /**
     * The sampled stack, leaf first. Each frame is an array with 'file'
     * (string; "" for internal functions), 'line' (int: the line being
     * executed; 0 for internal functions), and when applicable 'class'
     * (the declaring class), 'function' ("{closure}" for closures; absent
     * for file-scope code) and 'closure_line' (the first line of a
     * closure). A stack deeper than the profiler's max depth keeps its
     * leaf-most frames under a root frame with 'function' =>
     * 'excimer_truncated'.
     *
     * @return array
     */
    public function getTrace() {}
}

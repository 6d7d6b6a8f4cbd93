<?php

/** @generate-class-entries */

/**
 * The PHP API of class ExcimerLog (src/excimer_log.c). The first half of
 * src/excimer_log_arginfo.h is generated from this file by scripts/gen-arginfo
 * (php-src's build/gen_stub.php).
 */

/**
 * The samples collected by an ExcimerProfiler, oldest first. A log is
 * obtained from ExcimerProfiler::getLog() or ::flush(), or handed to the
 * flush callback; it cannot be constructed by users.
 *
 * Each element is an ExcimerLogEntry. Every foreach has a position of its
 * own; the Iterator methods below keep another. A clone is an independent
 * copy. The log is read-only: writing or
 * unsetting an element gives an E_WARNING "ExcimerLog cannot be modified".
 *
 * Memory is bounded by the INI setting excimer.max_log_entries (default
 * 1000000, 0 = no limit): once a log holds that many entries, a new sample
 * is added to the event count of the newest entry with the same stack, or,
 * when its stack is not in the log yet, dropped (its events still count in
 * getEventCount()).
 *
 */
class ExcimerLog implements Iterator, Countable, ArrayAccess
{
    /** Logs are created by ExcimerProfiler only. */
    final private function __construct() {}

    /**
     * The log in the "collapsed" format of Brendan Gregg's FlameGraph and
     * of Arc Lamp: one line per distinct stack, in the order the stacks
     * were first seen, "root;...;leaf COUNT\n", COUNT being the sum of the
     * event counts of its samples. Frame names are "Class::method",
     * "function", "{closure:/path/file.php(LINE)}" for closures and the
     * file path for file-scope code; spaces and NUL bytes in names become
     * "_". Stacks differing only in line numbers are merged. An empty log
     * gives "".
     *
     * @return string
     */
    public function formatCollapsed() {}

    /**
     * The log in the speedscope file format
     * (https://www.speedscope.app/file-format-schema.json), ready for
     * json_encode(): one "sampled" profile in nanoseconds; each sample is
     * the list of its frame indexes from root to leaf, weighted by its
     * event count times the period; frames are functions (lines merged),
     * one per name and file, in the order stacks first reached them from
     * the root.
     *
     * @return array
     */
    public function getSpeedscopeData() {}

    /**
     * Samples per function, keyed by the frame name as in formatCollapsed():
     * [name => ['file' => string, 'line' => int, 'class' => string (methods),
     * 'function' => string (not for file-scope code), 'closure_line' => int
     * (closures), 'self' => events with it as the leaf, 'inclusive' =>
     * events with it anywhere in the stack]], sorted by 'inclusive'
     * descending. A function appearing several times in one stack
     * (recursion) counts once for that sample.
     */
    public function aggregateByFunction(): array {}

    /**
     * The number of timer events the log stands for: the sum of its
     * entries' event counts (each 1 + timer overruns + ticks merged before
     * the engine reached a safe point), plus the events of samples dropped
     * at excimer.max_log_entries.
     *
     * @return int
     */
    public function getEventCount() {}

    /**
     * The entry at the iterator position, null past the end.
     *
     * @tentative-return-type
     */
    public function current(): mixed {}

    /**
     * The iterator position (an entry index), null past the end.
     *
     * @tentative-return-type
     */
    public function key(): mixed {}

    /** @tentative-return-type */
    public function next(): void {}

    /** @tentative-return-type */
    public function rewind(): void {}

    /** @tentative-return-type */
    public function valid(): bool {}

    /**
     * The number of entries (samples kept).
     *
     * @tentative-return-type
     */
    public function count(): int {}

    /**
     * Whether $offset (an int parameter: "abc" is a TypeError) is an entry index.
     *
     * @param int $offset
     * @tentative-return-type
     */
    public function offsetExists($offset): bool {}

    /**
     * The entry at index $offset (an int parameter), null when out of range.
     *
     * @param int $offset
     * @tentative-return-type
     */
    public function offsetGet($offset): mixed {}

    /**
     * Not supported: gives an E_WARNING "ExcimerLog cannot be modified".
     *
     * @param mixed $offset
     * @param mixed $value
     * @tentative-return-type
     */
    public function offsetSet($offset, $value): void {}

    /**
     * Not supported: gives an E_WARNING "ExcimerLog cannot be modified".
     *
     * @param mixed $offset
     * @tentative-return-type
     */
    public function offsetUnset($offset): void {}
}

<?php

/** @generate-class-entries */

/**
 * The PHP API of src/excimer_timer.c. src/excimer_timer_arginfo.h is generated
 * from this file by scripts/gen-arginfo (php-src's build/gen_stub.php).
 */

/**
 * A timer that calls back into PHP code: once after an interval, or
 * periodically. The expiry is noticed by the engine at its next safe point
 * (a loop back-edge, a function call or return), where the callback runs
 * on the same thread as the interrupted code. A timer stops when the object
 * is destroyed.
 */
class ExcimerTimer
{

    /**
     * The clock to measure: EXCIMER_REAL (wall clock, the default) or
     * EXCIMER_CPU (CPU time of the calling thread). Any other value gives
     * an E_WARNING "Invalid event type" and keeps the current one. Takes
     * effect at the next start().
     *
     * @param int $event_type
     * @return void
     */
    public function setEventType($event_type) {}

    /**
     * The delay in seconds before the first expiry. When it is 0, the
     * first expiry comes after one period. Takes effect at the next start().
     *
     * @param float $interval
     * @return void
     */
    public function setInterval($interval) {}

    /**
     * The time in seconds between expiries after the first; 0 (the
     * default) makes a one-shot timer. Takes effect at the next start().
     *
     * @param float $period
     * @return void
     */
    public function setPeriod($period) {}

    /**
     * The function to call on expiry, or null for none. It receives the
     * number of expirations since its previous call (int, >= 1: more than
     * one when the engine reached no safe point for longer than a period).
     * An exception thrown by it propagates into the interrupted code.
     *
     * @param callable|null $callback
     * @return void
     */
    public function setCallback($callback) {}

    /**
     * Starts the timer, or restarts it when it runs. With both interval
     * and period 0 it gives an E_WARNING "Unable to start timer with a
     * value of zero duration and period" and does not start.
     *
     * @return void
     */
    public function start() {}

    /**
     * Stops the timer; expirations not yet handed to the callback are
     * discarded. Does nothing when it is not running.
     *
     * @return void
     */
    public function stop() {}

    /**
     * The time in seconds until the next expiry; 0 when the timer is
     * stopped or a one-shot timer has expired.
     *
     * @return float
     */
    public function getTime() {}
}

/**
 * Calls $callback once, after $interval seconds of wall-clock time. The
 * returned timer must be kept alive until then: destroying it cancels the
 * call. Returns null (with an E_WARNING) when the timer cannot start, e.g.
 * for an interval of 0.
 * @param callable $callback
 * @param float $interval
 * @return ExcimerTimer|null
 */
function excimer_set_timeout($callback, $interval) {}

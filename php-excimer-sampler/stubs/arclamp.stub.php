<?php

/** @generate-function-entries */

/**
 * Sends the lines of ExcimerLog::formatCollapsed() output to an Arc Lamp
 * target: redis://HOST:PORT/CHANNEL (PUBLISH), redis://HOST:PORT/KEY?stream=1
 * (XADD ... sample LINE), udp://HOST:PORT or unix:///PATH (datagrams of whole
 * lines). Lines that do not start with $entryPoint get it as their first
 * frame. The whole call takes at most excimer.arclamp_timeout seconds;
 * delivery failures are counted (excimer_arclamp_stats()), never thrown.
 *
 * @return int the number of lines delivered
 */
function excimer_arclamp_send(string $target, string $collapsed, ?string $entryPoint = null): int {}

/**
 * Delivery counters of this process:
 * ['sent' => int, 'failed' => int, 'unheard' => int,
 *  'errors' => ['connect' => int, 'timeout' => int, 'send' => int, 'reply' => int],
 *  'last_error' => string]
 * 'unheard': sent lines PUBLISHed while Redis had no subscriber (dropped).
 */
function excimer_arclamp_stats(): array {}

/**
 * Zero-code collection leaves this request out: its samples so far are
 * dropped and no more are taken (health checks, status pages). Returns
 * whether the request was being collected. Only the calling request is
 * affected; the next one is collected as configured.
 */
function excimer_arclamp_skip_request(): bool {}

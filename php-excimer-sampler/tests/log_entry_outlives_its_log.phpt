--TEST--
ExcimerLogEntry keeps its log alive: entries stay valid after the log and the profiler are gone
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function sampled(ExcimerLog $log) {
    burn_until_samples($log, 2);
}

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
sampled($p->getLog());
$p->stop();
$log = $p->getLog();
$entry = $log[0];
$last = $log[1];
$expect = $entry->getTrace();
unset($log, $p);
gc_collect_cycles();
var_dump($entry->getTrace() === $expect, $entry->getEventCount() >= 1);
var_dump(count($entry->getTrace()) >= 1);
unset($entry);
var_dump(count($last->getTrace()) >= 2);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)

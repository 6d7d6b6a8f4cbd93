--TEST--
ExcimerProfiler: start() restarts, a stopped profiler can start again (also with another event type), destroying a running one stops it
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
$p->start();                     /* restart while running */
$log = $p->getLog();
burn_until_samples($log, 3);
$p->stop();
$n = count($log);
burn(0.03);
var_dump($n >= 3, count($log) === $n);

$p->setEventType(EXCIMER_CPU);   /* next start() uses the CPU clock */
$p->start();
burn_until_samples($log, $n + 3);
$p->stop();
var_dump(count($log) >= $n + 3);

/* Destroyed while running: no more samples, the log lives on. */
$p->start();
$p = null;
$m = count($log);
burn(0.03);
var_dump(count($log) === $m);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)

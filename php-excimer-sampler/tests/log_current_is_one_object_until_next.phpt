--TEST--
ExcimerLog::current() called twice without next() gives the same ExcimerLogEntry object, as in the original (checked against Debian's php-excimer module); next() and rewind() move on; the kept entry does not keep the log alive (the cycle is collected)
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';
$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setEventType(EXCIMER_REAL);
$p->start();
burn_until_samples($p->getLog(), 2); /* (not a fixed time: valgrind may starve the timer) */
$p->stop();
$log = $p->getLog();
var_dump(count($log) >= 2);
$a = $log->current();
var_dump($a === $log->current(), $a->getTimestamp() === $log[0]->getTimestamp());
$log->next();
$b = $log->current();
var_dump($b !== $a, $b === $log->current(), $b->getTimestamp() === $log[1]->getTimestamp());
$log->rewind();
var_dump($log->current() !== $a, $log->current()->getTimestamp() === $a->getTimestamp());
/* the log holds its current entry and the entry its log: collected all the same */
unset($a, $b, $p);
$w = WeakReference::create($log);
unset($log);
gc_collect_cycles();
var_dump($w->get());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
NULL

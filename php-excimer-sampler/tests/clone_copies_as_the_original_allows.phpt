--TEST--
clone is allowed on every class, as in Excimer, and gives a working object (Excimer's clone copies only the PHP object and crashes on use): a cloned log is an independent copy, a cloned entry the same entry, a cloned profiler a stopped one with the same settings and a copy of its log, a cloned timer an unstarted one with the same settings and callback
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setMaxDepth(50);
$p->start();
burn_until_samples($p->getLog(), 3);
$p->stop();
$log = $p->getLog();

$copy = clone $log;
var_dump(count($copy) === count($log), $copy->formatCollapsed() === $log->formatCollapsed(),
         $copy->getEventCount() === $log->getEventCount());

$entry = clone $log[0];
var_dump($entry->getTrace() === $log[0]->getTrace());

$q = clone $p;
var_dump(count($q->getLog()) === count($log), $q->getLog() !== $log);
$before = count($log);
$q->start();
burn_until_samples($q->getLog(), count($q->getLog()) + 2);
$q->stop();
var_dump(count($log) === $before, count($copy) === $before, count($q->getLog()) > $before);
unset($log, $p);
var_dump(count($copy) === $before);

$fired = 0;
$t = new ExcimerTimer;
$t->setInterval(0.001);
$t->setCallback(function () use (&$fired) { $fired++; });
$u = clone $t;
$u->start();
$deadline = hrtime(true) + 20e9;
while ($fired === 0 && hrtime(true) < $deadline) {
    usleep(1000);
}
var_dump($fired, $t->getTime());
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
bool(true)
bool(true)
int(1)
float(0)

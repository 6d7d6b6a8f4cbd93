--TEST--
ExcimerTimer: start() with interval and period 0 warns and does not start
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$t = new ExcimerTimer;
$t->setCallback(function () { echo "never\n"; });
$t->start();
$t->setInterval(-1);
$t->start();
var_dump($t->getTime());
// A period alone is enough: the first expiry comes after one period.
$t->setInterval(0);
$t->setPeriod(10);
$t->start();
var_dump($t->getTime() > 9);
?>
--EXPECTF--
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line %d

Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line %d
float(0)
bool(true)

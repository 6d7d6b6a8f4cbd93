--TEST--
ExcimerTimer: setEventType() with an unknown type warns "Invalid event type" and keeps the old one
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$fired = false;
$t = new ExcimerTimer;
$t->setEventType(2);
$t->setEventType(-1);
$t->setInterval(0.01);
$t->setCallback(function () use (&$fired) { $fired = true; });
$t->start();
usleep(100000); // still the wall clock: it expires while sleeping
$deadline = hrtime(true) + 5e9;
while (!$fired && hrtime(true) < $deadline) {}
var_dump($fired);
?>
--EXPECTF--
Warning: ExcimerTimer::setEventType(): Invalid event type in %s on line %d

Warning: ExcimerTimer::setEventType(): Invalid event type in %s on line %d
bool(true)

--TEST--
ExcimerTimer: getTime() is the time to the next expiry, 0 before start() and after stop()
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
$t->setInterval(10.0);
var_dump($t->getTime());
$t->start();
$t0 = $t->getTime();
usleep(100000);
$t1 = $t->getTime();
var_dump($t0 > 9.9 && $t0 <= 10.0);
var_dump($t1 < $t0 - 0.05 && $t1 > 5);
// start() on a running timer restarts it.
$t->start();
var_dump($t->getTime() > $t1);
$t->stop();
var_dump($t->getTime());
$t->stop(); // quiet when not running
var_dump($t->getTime());
?>
--EXPECT--
float(0)
bool(true)
bool(true)
bool(true)
float(0)
float(0)

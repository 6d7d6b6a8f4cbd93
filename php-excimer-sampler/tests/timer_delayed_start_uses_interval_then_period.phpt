--TEST--
ExcimerTimer: the first expiry comes after the interval, the following ones every period
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$times = [];
$t = new ExcimerTimer;
$t->setInterval(1.0);
$t->setPeriod(0.01);
$t->setCallback(function ($n) use (&$times) { $times[] = hrtime(true); });
$start = hrtime(true);
$t->start();
$deadline = $start + 5e9;
while (count($times) < 2 && hrtime(true) < $deadline) {}
$t->stop();
var_dump(count($times));
// Not before the interval...
var_dump(($times[0] - $start) / 1e9 >= 0.99);
// ...and then at the period's pace, not the interval's.
var_dump(($times[1] - $times[0]) / 1e9 < 0.9);
?>
--EXPECT--
int(2)
bool(true)
bool(true)

--TEST--
ExcimerTimer: a timer whose callback refers back to it is collected by the cycle collector and stops
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$calls = 0;
$t = new ExcimerTimer;
$t->setPeriod(0.002);
$t->setCallback(function ($n) use ($t, &$calls) { $calls++; });
$t->start();
$deadline = hrtime(true) + 5e9;
while ($calls < 2 && hrtime(true) < $deadline) {}
unset($t);
var_dump(gc_collect_cycles() >= 2); // the timer and its closure
$collected = $calls;
$deadline = hrtime(true) + 0.3e9;
while (hrtime(true) < $deadline) {}
var_dump($calls === $collected);
?>
--EXPECT--
bool(true)
bool(true)

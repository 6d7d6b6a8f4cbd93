--TEST--
timerlib: creating, starting and firing timers does not move the user's seeded mt_rand() sequence
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
mt_srand(42);
$expected = [mt_rand(), mt_rand(), mt_rand()];

mt_srand(42);
$fired = 0;
$timers = [];
foreach ([EXCIMER_REAL, EXCIMER_CPU] as $type) {
    $t = new ExcimerTimer;
    $t->setEventType($type);
    $t->setPeriod(0.005);
    $t->setCallback(function () use (&$fired) { $fired++; });
    $t->start();
    $timers[] = $t;
}
$deadline = hrtime(true) + 5e9;
while ($fired < 4 && hrtime(true) < $deadline) {}
$timers = [];
var_dump($fired >= 4);
var_dump([mt_rand(), mt_rand(), mt_rand()] === $expected);
?>
--EXPECT--
bool(true)
bool(true)

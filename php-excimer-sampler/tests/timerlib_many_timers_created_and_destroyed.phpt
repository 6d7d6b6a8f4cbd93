--TEST--
timerlib: thousands of short-lived running timers are created, fired and destroyed without leaking OS timers
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
$cb = function () use (&$calls) { $calls++; };
for ($i = 0; $i < 3000; $i++) {
    $t = new ExcimerTimer;
    $t->setPeriod(0.0001);
    $t->setCallback($cb);
    $t->start();
    if ($i % 100 === 0) {
        usleep(1000); // let some of them fire
    }
    $t = null; // destroyed with signals possibly still queued
}
// A batch alive at once: the slot table grows.
$batch = [];
for ($i = 0; $i < 200; $i++) {
    $t = new ExcimerTimer;
    $t->setPeriod(0.001);
    $t->setCallback($cb);
    $t->start();
    $batch[] = $t;
}
$before = $calls;
$deadline = hrtime(true) + 5e9;
while ($calls < $before + 200 && hrtime(true) < $deadline) {}
var_dump($calls >= $before + 200);
$batch = [];
var_dump($calls > 0);
?>
--EXPECT--
bool(true)
bool(true)

--TEST--
ExcimerTimer: timers with different periods run side by side, each calling its own callback
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$calls = ['a' => 0, 'b' => 0, 'c' => 0];
$timers = [];
foreach (['a' => 0.007, 'b' => 0.013, 'c' => 0.029] as $name => $period) {
    $t = new ExcimerTimer;
    $t->setPeriod($period);
    $t->setCallback(function ($n) use (&$calls, $name) { $calls[$name]++; });
    $t->start();
    $timers[] = $t;
}
$deadline = hrtime(true) + 5e9;
while (min($calls) < 3 && hrtime(true) < $deadline) {}
foreach ($timers as $t) {
    $t->stop();
}
var_dump(min($calls) >= 3);
?>
--EXPECT--
bool(true)

--TEST--
ExcimerTimer: a periodic timer fires repeatedly, each call with a count >= 1
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
$events = 0;
$badCounts = [];
$t = new ExcimerTimer;
$t->setPeriod(0.01);
$t->setCallback(function ($n) use (&$calls, &$events, &$badCounts) {
    if (!is_int($n) || $n < 1) {
        $badCounts[] = $n;
    }
    $calls++;
    $events += $n;
});
$t->start();
$deadline = hrtime(true) + 5e9;
while ($events < 10 && hrtime(true) < $deadline) {}
$t->stop();
var_dump($calls >= 2, $events >= 10, $badCounts);
?>
--EXPECT--
bool(true)
bool(true)
array(0) {
}

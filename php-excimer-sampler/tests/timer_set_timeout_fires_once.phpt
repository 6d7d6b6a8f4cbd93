--TEST--
excimer_set_timeout(): the callback runs once after the interval; the returned timer cancels it
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$calls = [];
$start = hrtime(true);
$timer = excimer_set_timeout(function ($n) use (&$calls) { $calls[] = $n; }, 0.05);
var_dump(get_class($timer));
$deadline = $start + 5e9;
while (!$calls && hrtime(true) < $deadline) {}
$elapsed = (hrtime(true) - $start) / 1e9;
$deadline = hrtime(true) + 0.2e9;
while (hrtime(true) < $deadline) {}
var_dump($calls, $elapsed >= 0.045);

// Dropping the timer cancels the call.
$timer = excimer_set_timeout(function () { echo "never\n"; }, 0.05);
$timer = null;
$deadline = hrtime(true) + 0.2e9;
while (hrtime(true) < $deadline) {}

// A zero or negative interval cannot start: the warning, and the timer
// unstarted, as the original returns it (its callback never runs).
foreach ([0, -1] as $interval) {
    $t = excimer_set_timeout(function () { echo "never\n"; }, $interval);
    var_dump(get_class($t), $t->getTime());
}
$deadline = hrtime(true) + 0.05e9;
while (hrtime(true) < $deadline) {}
?>
--EXPECTF--
string(12) "ExcimerTimer"
array(1) {
  [0]=>
  int(1)
}
bool(true)

Warning: excimer_set_timeout(): Unable to start timer with a value of zero duration and period in %s on line %d
string(12) "ExcimerTimer"
float(0)

Warning: excimer_set_timeout(): Unable to start timer with a value of zero duration and period in %s on line %d
string(12) "ExcimerTimer"
float(0)

--TEST--
ExcimerTimer: a one-shot timer fires once, not before its interval, with a count of 1
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
$t = new ExcimerTimer;
$t->setInterval(0.05);
$t->setCallback(function ($n) use (&$calls) { $calls[] = $n; });
$start = hrtime(true);
$t->start();
$deadline = $start + 5e9;
while (!$calls && hrtime(true) < $deadline) {}
$elapsed = (hrtime(true) - $start) / 1e9;
// Half a second more: a one-shot timer does not fire again.
$deadline = hrtime(true) + 0.5e9;
while (hrtime(true) < $deadline) {}
var_dump($calls);
var_dump($elapsed >= 0.045);
var_dump($t->getTime());
?>
--EXPECT--
array(1) {
  [0]=>
  int(1)
}
bool(true)
float(0)

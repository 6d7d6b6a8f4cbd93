--TEST--
ExcimerTimer: expirations during a call without safe points reach the callback as one count
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$counts = [];
$firstCall = null;
$t = new ExcimerTimer;
$t->setPeriod(0.01);
$t->setCallback(function ($n) use (&$counts, &$firstCall) {
    $firstCall ??= hrtime(true);
    $counts[] = $n;
});
$start = hrtime(true);
$t->start();
usleep(200000); // about 20 expirations, and no safe point until it returns
$deadline = hrtime(true) + 5e9;
while (!$counts && hrtime(true) < $deadline) {}
$t->stop();
// All of them in the first call...
var_dump($counts[0] >= 5);
// ...and no more than the periods that had passed by then.
var_dump($counts[0] <= ($firstCall - $start) / 1e7 + 1);
?>
--EXPECT--
bool(true)
bool(true)

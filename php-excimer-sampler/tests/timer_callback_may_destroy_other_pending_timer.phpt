--TEST--
ExcimerTimer: a callback that destroys another timer with pending events cancels that timer's call
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$log = [];
$a = new ExcimerTimer;
$b = new ExcimerTimer;
$a->setInterval(0.03);
$b->setInterval(0.03);
$a->setCallback(function ($n) use (&$log, &$b) {
    $log[] = "a";
    $b = null;
});
$b->setCallback(function ($n) use (&$log) { $log[] = "b"; });
$a->start();
$b->start();
usleep(200000); // both expire; the first safe point comes after this call
$deadline = hrtime(true) + 0.3e9;
while (hrtime(true) < $deadline) {}
var_dump($log, $b);
?>
--EXPECT--
array(1) {
  [0]=>
  string(1) "a"
}
NULL

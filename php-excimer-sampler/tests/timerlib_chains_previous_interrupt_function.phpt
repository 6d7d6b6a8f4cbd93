--TEST--
timerlib: the interrupt hook chains the previous one (pcntl async signals keep working)
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--SKIPIF--
<?php if (!function_exists('pcntl_async_signals')) die('skip pcntl not available'); ?>
--FILE--
<?php
pcntl_async_signals(true);
$alarm = false;
pcntl_signal(SIGALRM, function () use (&$alarm) { $alarm = true; });
$calls = 0;
$t = new ExcimerTimer;
$t->setPeriod(0.01);
$t->setCallback(function () use (&$calls) { $calls++; });
$t->start();
pcntl_alarm(1);
$deadline = hrtime(true) + 10e9;
while (!($alarm && $calls >= 3) && hrtime(true) < $deadline) {}
$t->stop();
var_dump($alarm, $calls >= 3);
?>
--EXPECT--
bool(true)
bool(true)

--TEST--
ExcimerTimer: after stop() the callback is not called again; start() resumes it
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
$t->setPeriod(0.005);
$t->setCallback(function ($n) use (&$calls) { $calls++; });
$t->start();
$deadline = hrtime(true) + 5e9;
while ($calls < 2 && hrtime(true) < $deadline) {}
$t->stop();
$stopped = $calls;
$deadline = hrtime(true) + 0.3e9;
while (hrtime(true) < $deadline) {}
var_dump($stopped >= 2, $calls === $stopped);

$t->start();
$deadline = hrtime(true) + 5e9;
while ($calls === $stopped && hrtime(true) < $deadline) {}
$t->stop();
var_dump($calls > $stopped);

// setCallback(null): the timer runs, nothing is called.
$after = $calls;
$t->setCallback(null);
$t->start();
$deadline = hrtime(true) + 0.1e9;
while (hrtime(true) < $deadline) {}
$t->stop();
var_dump($calls === $after);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)

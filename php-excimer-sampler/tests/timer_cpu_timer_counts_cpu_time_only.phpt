--TEST--
ExcimerTimer: an EXCIMER_CPU timer fires while the thread burns CPU, not while it sleeps
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$events = 0;
$t = new ExcimerTimer;
$t->setEventType(EXCIMER_CPU);
$t->setPeriod(0.05);
$t->setCallback(function ($n) use (&$events) { $events += $n; });
$t->start();
usleep(300000); // six periods of wall-clock time, almost no CPU time
$asleep = $events;
$deadline = hrtime(true) + 10e9;
while ($events - $asleep < 2 && hrtime(true) < $deadline) {}
$t->stop();
var_dump($asleep <= 1);
var_dump($events - $asleep >= 2);

// The event type takes effect at the next start(): back to wall clock.
$events = 0;
$t->setEventType(EXCIMER_REAL);
$t->start();
usleep(300000);
$deadline = hrtime(true) + 5e9;
while ($events < 3 && hrtime(true) < $deadline) {}
$t->stop();
var_dump($events >= 3);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)

--TEST--
ExcimerTimer: destroying a running timer (unset, or dropped inside its own callback) ends its callbacks
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
$t->setPeriod(0.002);
$t->setCallback(function ($n) use (&$calls) { $calls++; });
$t->start();
$deadline = hrtime(true) + 5e9;
while ($calls < 2 && hrtime(true) < $deadline) {}
unset($t);
$destroyed = $calls;
$deadline = hrtime(true) + 0.3e9;
while (hrtime(true) < $deadline) {}
var_dump($destroyed >= 2, $calls === $destroyed);

// The callback drops the last reference to its own timer.
$calls = 0;
$self = new ExcimerTimer;
$self->setPeriod(0.002);
$self->setCallback(function ($n) use (&$calls, &$self) {
    $calls++;
    $self = null;
    echo "timer dropped inside its callback\n";
});
$self->start();
$deadline = hrtime(true) + 5e9;
while ($self !== null && hrtime(true) < $deadline) {}
$deadline = hrtime(true) + 0.3e9;
while (hrtime(true) < $deadline) {}
var_dump($calls);
?>
--EXPECT--
bool(true)
bool(true)
timer dropped inside its callback
int(1)

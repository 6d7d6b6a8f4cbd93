--TEST--
ExcimerTimer: an exception thrown by the callback surfaces in the interrupted code
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
function busy(float $seconds) {
    $deadline = hrtime(true) + $seconds * 1e9;
    while (hrtime(true) < $deadline) {}
    return "busy loop finished";
}

$t = new ExcimerTimer;
$t->setInterval(0.05);
$t->setCallback(function ($n) { throw new RuntimeException("thrown by the timer ($n)"); });
$t->start();
try {
    echo busy(5), "\n";
} catch (RuntimeException $e) {
    echo get_class($e), ": ", $e->getMessage(), "\n";
}
echo "execution continues\n";

// A periodic timer keeps running after its callback threw.
$calls = 0;
$t->setPeriod(0.01);
$t->setCallback(function ($n) use (&$calls) {
    if (++$calls === 1) {
        throw new LogicException("first call");
    }
});
$t->start();
try {
    busy(5);
} catch (LogicException $e) {
    echo $e->getMessage(), "\n";
}
$deadline = hrtime(true) + 5e9;
while ($calls < 3 && hrtime(true) < $deadline) {}
$t->stop();
var_dump($calls >= 3);
?>
--EXPECT--
RuntimeException: thrown by the timer (1)
execution continues
first call
bool(true)

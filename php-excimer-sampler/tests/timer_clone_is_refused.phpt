--TEST--
ExcimerTimer: cloning is refused (one object owns one timer)
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
$t = new ExcimerTimer;
try {
    $c = clone $t;
} catch (Error $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
Trying to clone an uncloneable object of class ExcimerTimer

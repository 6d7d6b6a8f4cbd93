--TEST--
ExcimerTimer::setCallback() and excimer_set_timeout(): a non-callable warns and returns null, as in the original (not a TypeError); the timer stays usable
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
foreach (['no_such_function', [new stdClass, 'nope'], 42] as $cb) {
    var_dump(excimer_set_timeout($cb, 0.01));
    var_dump($t->setCallback($cb));
}
// The timer is still usable.
$fired = false;
$t->setCallback(function () use (&$fired) { $fired = true; });
$t->setInterval(0.01);
$t->start();
$deadline = hrtime(true) + 5e9;
while (!$fired && hrtime(true) < $deadline) {}
var_dump($fired);
?>
--EXPECTF--
Warning: excimer_set_timeout(): timer callback is not callable: function "no_such_function" not found or invalid function name in %s on line %d
NULL

Warning: ExcimerTimer::setCallback(): timer callback is not callable: function "no_such_function" not found or invalid function name in %s on line %d
NULL

Warning: excimer_set_timeout(): timer callback is not callable: class stdClass does not have a method "nope" in %s on line %d
NULL

Warning: ExcimerTimer::setCallback(): timer callback is not callable: class stdClass does not have a method "nope" in %s on line %d
NULL

Warning: excimer_set_timeout(): timer callback is not callable: no array or string given in %s on line %d
NULL

Warning: ExcimerTimer::setCallback(): timer callback is not callable: no array or string given in %s on line %d
NULL
bool(true)

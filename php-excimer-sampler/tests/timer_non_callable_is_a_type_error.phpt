--TEST--
ExcimerTimer::setCallback() and excimer_set_timeout(): a non-callable is a clean TypeError
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
    try {
        excimer_set_timeout($cb, 0.01);
    } catch (TypeError $e) {
        echo $e->getMessage(), "\n";
    }
    try {
        $t->setCallback($cb);
    } catch (TypeError $e) {
        echo $e->getMessage(), "\n";
    }
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
--EXPECT--
excimer_set_timeout(): Argument #1 ($callback) must be a valid callback, function "no_such_function" not found or invalid function name
ExcimerTimer::setCallback(): Argument #1 ($callback) must be a valid callback or null, function "no_such_function" not found or invalid function name
excimer_set_timeout(): Argument #1 ($callback) must be a valid callback, class stdClass does not have a method "nope"
ExcimerTimer::setCallback(): Argument #1 ($callback) must be a valid callback or null, class stdClass does not have a method "nope"
excimer_set_timeout(): Argument #1 ($callback) must be a valid callback, no array or string given
ExcimerTimer::setCallback(): Argument #1 ($callback) must be a valid callback or null, no array or string given
bool(true)

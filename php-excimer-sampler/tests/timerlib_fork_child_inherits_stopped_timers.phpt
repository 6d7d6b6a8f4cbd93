--TEST--
timerlib: after fork the child's inherited timers are quietly stopped, new ones work, the parent's keep running
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--FILE--
<?php
function spin(float $seconds, ?callable $until = null) {
    $deadline = hrtime(true) + $seconds * 1e9;
    while (!($until && $until()) && hrtime(true) < $deadline) {}
}

$calls = 0;
$t = new ExcimerTimer;
$t->setPeriod(0.005);
$t->setCallback(function () use (&$calls) { $calls++; });
$t->start();
$u = new ExcimerTimer;
$u->setPeriod(0.005);
$u->start();
spin(5, function () use (&$calls) { return $calls > 0; });

$pid = pcntl_fork();
if ($pid === 0) {
    // Child: POSIX timers are not inherited.
    var_dump($t->getTime());
    $inherited = $calls;
    spin(0.2);
    echo "child: inherited timer silent: ", var_export($calls === $inherited, true), "\n";
    $t->stop();  // no EINVAL warning
    unset($u);   // destroying an inherited running timer: no warning either
    $fired = 0;
    $n = new ExcimerTimer;
    $n->setInterval(0.02);
    $n->setCallback(function ($c) use (&$fired) { $fired += $c; });
    $n->start();
    spin(5, function () use (&$fired) { return $fired > 0; });
    echo "child: new timer fired: $fired\n";
    $t->start(); // the inherited object can be restarted
    spin(5, function () use (&$calls, $inherited) { return $calls > $inherited; });
    echo "child: restarted timer fires: ", var_export($calls > $inherited, true), "\n";
    exit(0);
}
pcntl_waitpid($pid, $status);
var_dump(pcntl_wifexited($status), pcntl_wexitstatus($status));
$before = $calls;
spin(5, function () use (&$calls, $before) { return $calls > $before; });
echo "parent: timer still fires: ", var_export($calls > $before, true), "\n";
var_dump(pcntl_waitpid(-1, $status, WNOHANG)); // no child left: no zombie
?>
--EXPECT--
float(0)
child: inherited timer silent: true
child: new timer fired: 1
child: restarted timer fires: true
bool(true)
int(0)
parent: timer still fires: true
int(-1)

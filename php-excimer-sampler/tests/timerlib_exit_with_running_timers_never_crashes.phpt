--TEST--
timerlib: processes exiting with 1 ms timers still running always exit cleanly (1.0.4 aborted in ~1/3)
--EXTENSIONS--
excimer
--DESCRIPTION--
VALGRIND_OPTS: under valgrind's default (unfair) thread lock a busy PHP thread can
starve the timer helper thread for seconds; --fair-sched=yes schedules as a kernel does.
--ENV--
VALGRIND_OPTS=--fair-sched=yes
--FILE--
<?php
// The module loaded here, to load it the same way in the children.
$so = null;
foreach (file('/proc/self/maps') as $line) {
    $path = strstr(trim($line), '/');
    if ($path !== false && str_ends_with($path, '.so') && str_contains(basename($path), 'excimer')) {
        $so = $path;
        break;
    }
}
if ($so === null) {
    die("excimer.so not found in /proc/self/maps\n");
}

$prelude = '$n = 0; $cb = function ($c) use (&$n) { $n += $c; };
function spin($s) { $d = hrtime(true) + $s * 1e9; while (hrtime(true) < $d) {} }
function timer($type, $cb) {
    $t = new ExcimerTimer; $t->setEventType($type); $t->setPeriod(0.001);
    $t->setCallback($cb); $t->start(); return $t;
}';
$scripts = [
    // Running timers in global variables, destroyed at shutdown.
    'global'   => '$a = timer(EXCIMER_REAL, $cb); $b = timer(EXCIMER_CPU, $cb); spin(0.03);',
    // exit() from inside a callback while the timers keep firing.
    'callback' => '$a = timer(EXCIMER_REAL, function () { static $i = 0; if (++$i == 3) exit(0); });
                   $b = timer(EXCIMER_REAL, $cb); spin(60); exit(3);',
    // Timers in a reference cycle: freed only after the request has ended.
    'cycle'    => '$o = new stdClass; $o->self = $o; $o->t = timer(EXCIMER_REAL, $cb);
                   $o->u = timer(EXCIMER_CPU, $cb); unset($o); spin(0.03);',
];
$failures = [];
// 30 processes, 10 of each kind: with 1.0.4 a good third of them crash.
// Under valgrind (run-tests -m sets USE_ZEND_ALLOC=0) 2 of each: memcheck
// sees a bad exit path in every run, and 30 processes took 160 s there.
$rounds = getenv('USE_ZEND_ALLOC') === '0' ? 2 : 10;
for ($i = 0; $i < $rounds; $i++) {
    foreach ($scripts as $name => $code) {
        $cmd = escapeshellarg(PHP_BINARY) . ' -n -d ' . escapeshellarg("extension=$so")
            . ' -r ' . escapeshellarg($prelude . $code) . ' 2>&1';
        $output = [];
        exec($cmd, $output, $status);
        if ($status !== 0 || $output) {
            $failures[] = "$name run $i: exit status $status " . implode("\n", $output);
        }
    }
}
var_dump($failures);
?>
--EXPECT--
array(0) {
}

--TEST--
timerlib: programs started while timers run inherit no blocked signal (the PHP thread's mask is left alone)
--EXTENSIONS--
excimer
--SKIPIF--
<?php if (!is_readable('/proc/self/status')) die('skip needs /proc'); ?>
--FILE--
<?php
// The blocked real-time signals (33..64) of a program started by PHP code,
// from its SigBlk line: 64 bits in hex, signal N is bit N-1.
function realtime_blocked(string $status_line): int {
    $hex = trim(substr($status_line, strlen('SigBlk:')));
    return hexdec(substr($hex, -16, 8));
}
function child_via_proc_open(): int {
    $p = proc_open(['grep', '^SigBlk:', '/proc/self/status'], [1 => ['pipe', 'w']], $pipes);
    $line = stream_get_contents($pipes[1]);
    fclose($pipes[1]);
    proc_close($p);
    return realtime_blocked($line);
}

var_dump(child_via_proc_open());

$prof = new ExcimerProfiler;
$prof->setPeriod(0.001);
$prof->start();
$timer = new ExcimerTimer;
$timer->setPeriod(0.001);
$timer->setCallback(function () {});
$timer->start();

var_dump(child_via_proc_open());
var_dump(realtime_blocked(shell_exec('grep ^SigBlk: /proc/self/status')));
$prof->stop();
$timer->stop();
var_dump(child_via_proc_open());
?>
--EXPECT--
int(0)
int(0)
int(0)
int(0)

--TEST--
excimer_arclamp_send() after pcntl_fork(): parent and child send at the same time on connections of their own, 1,000 rounds without a stall or a lost line
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/redis-server')) die('skip redis-server not installed');
if (!function_exists('pcntl_fork')) die('skip pcntl not available');
?>
--INI--
excimer.arclamp_timeout_max=10
; long enough that a stall (a send waiting for replies another process
; read) stands out, short enough that the test cannot hang
excimer.arclamp_timeout=3
--FILE--
<?php
require __DIR__ . '/redis_helper.inc';
$redis = start_redis();
$target = "redis://127.0.0.1:{$redis['port']}/forked?stream=1";
// Under valgrind a fork costs seconds: fewer rounds, the same checks.
$rounds = getenv('USE_ZEND_ALLOC') === '0' ? 20 : 1000;

// The parent's connection is open (kept by its sender thread) before the
// first fork, and stays open across all of them.
var_dump(excimer_arclamp_send($target, "p;warmup 1\n"));
$stalls = 0;
$child_failures = 0;
for ($i = 0; $i < $rounds; $i++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $t = hrtime(true);
        $ok = excimer_arclamp_send($target, "c;round_$i 1\n") === 1;
        $slow = (hrtime(true) - $t) / 1e9 > 1.0;
        // Out at once, without the parent's shutdown functions (its send is done).
        pcntl_exec($ok && !$slow ? '/bin/true' : '/bin/false');
    }
    $t = hrtime(true);
    if (excimer_arclamp_send($target, "p;round_$i 1\n") !== 1) {
        echo "parent round $i failed\n";
    }
    if ((hrtime(true) - $t) / 1e9 > 1.0) {
        $stalls++;
    }
    pcntl_waitpid($pid, $status);
    if (!pcntl_wifexited($status) || pcntl_wexitstatus($status) !== 0) {
        $child_failures++;
    }
}
var_dump($stalls, $child_failures);
$s = excimer_arclamp_stats();
var_dump($s['sent'] === $rounds + 1, $s['failed']);

// Every line arrived once: no reply was read by the wrong process.
$c = stream_socket_client("tcp://127.0.0.1:{$redis['port']}", $errno, $errstr, 2);
fwrite($c, resp_command(['XLEN', 'forked']));
var_dump(resp_read($c) === 2 * $rounds + 1);
fwrite($c, resp_command(['XRANGE', 'forked', '-', '+']));
$seen = [];
foreach (resp_read($c) as [$id, $fields]) {
    $seen[$fields[1]] = ($seen[$fields[1]] ?? 0) + 1;
}
$missing = 0;
for ($i = 0; $i < $rounds; $i++) {
    $missing += ($seen["p;round_$i 1"] ?? 0) !== 1;
    $missing += ($seen["c;round_$i 1"] ?? 0) !== 1;
}
var_dump($missing);
stop_redis($redis);
?>
--EXPECT--
int(1)
int(0)
int(0)
bool(true)
int(0)
bool(true)
int(0)

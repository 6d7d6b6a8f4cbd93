--TEST--
excimer_arclamp_send(): failures are counted, bounded by excimer.arclamp_timeout, never thrown; a change of state is logged once
--EXTENSIONS--
excimer
--SKIPIF--
<?php if (!is_executable('/usr/bin/redis-server')) die('skip redis-server not installed'); ?>
--INI--
excimer.arclamp_timeout_max=10
; generous where a failure comes at once (a refused connect): under valgrind
; on a busy machine a send can wait longer than 0.1 s for the sender thread;
; 0.1 s where the deadline itself is under test
excimer.arclamp_timeout=10
--FILE--
<?php
require __DIR__ . '/redis_helper.inc';
$log = private_temp_dir('excimer-log') . '/php-error.log';
ini_set('error_log', $log);

// Nobody listens: refused at once; two lines are one message, one failure.
$port = free_tcp_port();
var_dump(excimer_arclamp_send("redis://127.0.0.1:$port/excimer", "a 1\nb 1\n"));
$s = excimer_arclamp_stats();
var_dump($s['failed'], $s['errors']['connect'], $s['last_error'] === "127.0.0.1:$port: Connection refused");
// Right after a refused connect the target is left alone for a moment
// (backoff): the next send fails at once, without a connect.
$t = hrtime(true);
var_dump(excimer_arclamp_send("redis://127.0.0.1:$port/excimer", "c 1\n"));
$ms = (hrtime(true) - $t) / 1e6;
// (under valgrind the sender thread's wake-up of this one can lag by more
// than the 50 ms backoff: the second send then connects, and is refused,
// again)
$err = excimer_arclamp_stats()['last_error'];
$valgrind = getenv('USE_ZEND_ALLOC') === '0';
var_dump($ms < ($valgrind ? 5000 : 50), str_starts_with($err, 'not retried for ')
                   || ($valgrind && $err === "127.0.0.1:$port: Connection refused"));

// A Redis that accepts but never answers (stopped): the deadline holds.
$redis = start_redis();
$pid = proc_get_status($redis['proc'])['pid'];
posix_kill_or_terminate($redis['proc'], $pid, 19); // SIGSTOP
// Only a stopped Redis of our own tests the deadline: say so if not.
for ($i = 0; $i < 200 && !process_is_stopped($pid); $i++) {
    usleep(10000);
}
if (!process_is_stopped($pid)) {
    echo "redis-server $pid is not stopped: ", @file_get_contents("/proc/$pid/stat"), "\n";
}
ini_set('excimer.arclamp_timeout', '0.1');
$t = hrtime(true);
var_dump(excimer_arclamp_send("redis://127.0.0.1:{$redis['port']}/excimer", "a 1\n"));
$ms = (hrtime(true) - $t) / 1e6;
// (under valgrind everything is ~50x slower, the bound too)
var_dump($ms >= 90 && $ms < (getenv('USE_ZEND_ALLOC') === '0' ? 5000 : 150));
$s = excimer_arclamp_stats();
var_dump($s['errors']['timeout'], $s['failed']);
posix_kill_or_terminate($redis['proc'], $pid, 18); // SIGCONT

// After it answers again, sending works (a fresh connection).
ini_set('excimer.arclamp_timeout', '10');
var_dump(excimer_arclamp_send("redis://127.0.0.1:{$redis['port']}/excimer", "a 1\n"));

// A unix socket nobody listens on (a failure to connect), and a malformed target.
$connect_before = excimer_arclamp_stats()['errors']['connect'];
var_dump(excimer_arclamp_send("unix:///nonexistent/arclamp.sock", "a 1\n"));
var_dump(excimer_arclamp_send("http://example.org/", "a 1\n"));
$s = excimer_arclamp_stats();
var_dump($s['errors']['connect'] - $connect_before, $s['errors']['send'], $s['sent'], $s['queued']);
stop_redis($redis);

// The error log holds one line per change of state, with its cause: not
// one per failed send.
foreach (file($log) as $line) {
    echo preg_replace('/^\[[^]]+\] /', '', $line);
}
?>
--EXPECTF--
int(0)
int(2)
int(1)
bool(true)
int(0)
bool(true)
bool(true)
int(0)
bool(true)
int(1)
int(4)
int(1)
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "http://example.org/": expected redis://HOST:PORT/CHANNEL[?stream=1], redis+unix:///PATH?channel=CHANNEL, redis-cluster://HOST:PORT[,HOST:PORT...]/CHANNEL?shards=N[&stream=1], udp://HOST:PORT or unix:///PATH in %s on line %d
int(0)
int(1)
int(0)
int(1)
int(0)
excimer: Arc Lamp: 127.0.0.1:%d: Connection refused (further failures are counted in excimer_arclamp_stats())
excimer: Arc Lamp: delivering again (4 lines failed meanwhile)
excimer: Arc Lamp: connect /nonexistent/arclamp.sock: No such file or directory (further failures are counted in excimer_arclamp_stats())

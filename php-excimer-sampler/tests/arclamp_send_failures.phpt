--TEST--
excimer_arclamp_send(): failures are counted, bounded by excimer.arclamp_timeout, never thrown
--EXTENSIONS--
excimer
--SKIPIF--
<?php if (!is_executable('/usr/bin/redis-server')) die('skip redis-server not installed'); ?>
--INI--
excimer.arclamp_timeout=0.1
--FILE--
<?php
require __DIR__ . '/redis_helper.inc';

// Nobody listens: refused at once.
$port = free_tcp_port();
var_dump(excimer_arclamp_send("redis://127.0.0.1:$port/excimer", "a 1\nb 1\n"));
$s = excimer_arclamp_stats();
var_dump($s['failed'], $s['errors']['connect'], $s['last_error']);

// A Redis that accepts but never answers (stopped): the deadline holds.
$redis = start_redis();
$pid = proc_get_status($redis['proc'])['pid'];
posix_kill_or_terminate($redis['proc'], $pid, 19); // SIGSTOP
$t = hrtime(true);
var_dump(excimer_arclamp_send("redis://127.0.0.1:{$redis['port']}/excimer", "a 1\n"));
$ms = (hrtime(true) - $t) / 1e6;
// (under valgrind everything is ~50x slower, the bound too)
var_dump($ms >= 90 && $ms < (getenv('USE_ZEND_ALLOC') === '0' ? 5000 : 600));
$s = excimer_arclamp_stats();
var_dump($s['errors']['timeout'], $s['failed']);
posix_kill_or_terminate($redis['proc'], $pid, 18); // SIGCONT

// After it answers again, sending works (a fresh connection).
ini_set('excimer.arclamp_timeout', '10');
var_dump(excimer_arclamp_send("redis://127.0.0.1:{$redis['port']}/excimer", "a 1\n"));

// A unix socket nobody listens on, and a malformed target.
var_dump(excimer_arclamp_send("unix:///nonexistent/arclamp.sock", "a 1\n"));
var_dump(excimer_arclamp_send("http://example.org/", "a 1\n"));
$s = excimer_arclamp_stats();
var_dump($s['errors']['send'], $s['sent']);
stop_redis($redis);
?>
--EXPECTF--
int(0)
int(2)
int(1)
string(%d) "connect: Connection refused"
int(0)
bool(true)
int(1)
int(3)
int(1)
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "http://example.org/": expected redis://HOST:PORT/CHANNEL[?stream=1], udp://HOST:PORT or unix:///PATH in %s on line %d
int(0)
int(1)
int(1)

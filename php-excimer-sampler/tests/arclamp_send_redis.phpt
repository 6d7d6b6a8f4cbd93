--TEST--
excimer_arclamp_send(): PUBLISH and XADD to a real redis-server, a call's lines in one message; lines published with no subscriber are counted as unheard
--EXTENSIONS--
excimer
--INI--
excimer.arclamp_timeout_max=10
; delivery is under test here, not the deadline (valgrind is ~50x slower)
excimer.arclamp_timeout=10
--SKIPIF--
<?php if (!is_executable('/usr/bin/redis-server')) die('skip redis-server not installed'); ?>
--FILE--
<?php
require __DIR__ . '/redis_helper.inc';
$redis = start_redis();
$port = $redis['port'];

$sub = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 2);
fwrite($sub, resp_command(['SUBSCRIBE', 'excimer']));
var_dump(resp_read($sub)); // [subscribe, excimer, 1]

$collapsed = "a;b 1\n/srv/w/api.php;c 2\n";
var_dump(excimer_arclamp_send("redis://127.0.0.1:$port/excimer", $collapsed, '/srv/w/api.php'));
var_dump(resp_read($sub)[2]);

var_dump(excimer_arclamp_send("redis://127.0.0.1:$port/excimer?stream=1", $collapsed, '/srv/w/api.php'));
$c = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 2);
fwrite($c, resp_command(['XRANGE', 'excimer', '-', '+']));
foreach (resp_read($c) as [$id, $fields]) {
    echo $fields[0], ' => ', $fields[1], "\n";
}
// The connection is kept for the next send of this process.
fwrite($c, resp_command(['CLIENT', 'LIST', 'TYPE', 'normal']));
$before = substr_count(resp_read($c), "\n");
excimer_arclamp_send("redis://127.0.0.1:$port/other", "x 1\n");
excimer_arclamp_send("redis://127.0.0.1:$port/other", "y 1\n");
fwrite($c, resp_command(['CLIENT', 'LIST', 'TYPE', 'normal']));
var_dump(substr_count(resp_read($c), "\n") === $before);
$s = excimer_arclamp_stats();
var_dump($s['sent'], $s['failed'], $s['unheard']);
// Nobody subscribes to "other": those two lines were accepted and dropped.
// A stream entry is kept whoever reads it: XADD is never unheard. Closing
// the subscriber makes "excimer" unheard too.
fclose($sub);
for ($i = 0; $i < 200; $i++) {          // until Redis has seen the close (at most 10 s)
    fwrite($c, resp_command(['PUBSUB', 'NUMSUB', 'excimer']));
    if (resp_read($c)[1] === 0) {
        break;
    }
    usleep(50000);
}
excimer_arclamp_send("redis://127.0.0.1:$port/excimer?stream=1", "z 1
");
excimer_arclamp_send("redis://127.0.0.1:$port/excimer", "w 1
v 1
");
$s = excimer_arclamp_stats();
var_dump($s['sent'], $s['unheard']);
stop_redis($redis);
?>
--EXPECT--
array(3) {
  [0]=>
  string(9) "subscribe"
  [1]=>
  string(7) "excimer"
  [2]=>
  int(1)
}
int(2)
string(39) "/srv/w/api.php;a;b 1
/srv/w/api.php;c 2"
int(2)
sample => /srv/w/api.php;a;b 1
/srv/w/api.php;c 2
bool(true)
int(6)
int(0)
int(2)
int(9)
int(4)

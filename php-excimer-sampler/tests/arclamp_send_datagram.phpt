--TEST--
excimer_arclamp_send(): UDP and unix datagrams carry whole lines, entry point prepended once
--EXTENSIONS--
excimer
--INI--
excimer.arclamp_timeout_max=10
; delivery is under test here, not the deadline: under valgrind on a busy
; machine the sender thread may take longer than the default 0.1 s to start
excimer.arclamp_timeout=10
--FILE--
<?php
// A datagram that never comes fails the test instead of hanging it.
function recv_within($sock, $seconds) {
    $r = [$sock]; $w = $e = null;
    return stream_select($r, $w, $e, $seconds) ? stream_socket_recvfrom($sock, 65536) : "(nothing within {$seconds} s)";
}
$collapsed = "main;foo 3\n/srv/w/index.php;bar 1\n/srv/w/index.php 2\n";
$entry = '/srv/w/index.php';

$udp = stream_socket_server('udp://127.0.0.1:0', $errno, $errstr, STREAM_SERVER_BIND);
$port = parse_url('udp://' . stream_socket_get_name($udp, false), PHP_URL_PORT);
var_dump(excimer_arclamp_send("udp://127.0.0.1:$port", $collapsed, $entry));
echo recv_within($udp, 30), "\n--\n";

require_once __DIR__ . '/tempdir.inc';
$path = private_temp_dir('excimer-test') . '/ingest.sock';
$unix = stream_socket_server("udg://$path", $errno, $errstr, STREAM_SERVER_BIND);
var_dump(excimer_arclamp_send("unix://$path", $collapsed));
echo recv_within($unix, 30), "\n--\n";
unlink($path);

// Many lines are packed into datagrams of whole lines.
$many = '';
for ($i = 0; $i < 1000; $i++) {
    $many .= str_repeat('Frame' . $i . ';', 10) . "leaf 1\n";
}
var_dump(excimer_arclamp_send("udp://127.0.0.1:$port", $many, $entry));
$got = [];
$datagrams = 0;
$deadline = microtime(true) + 30;
while (count($got) < 1000 && microtime(true) < $deadline) {
    $r = [$udp]; $w = $e = null;
    if (!stream_select($r, $w, $e, 1)) {
        continue;
    }
    $datagrams++;
    foreach (explode("\n", stream_socket_recvfrom($udp, 65536)) as $line) {
        $got[] = $line;
    }
}
// ~115 KB: two datagrams, each of whole lines
var_dump($datagrams, count($got), count(array_filter($got, fn($l) => preg_match('/^\/srv\/w\/index\.php;(Frame\d+;){10}leaf 1$/', $l))));
$s = excimer_arclamp_stats();
var_dump($s['sent'], $s['failed']);
?>
--EXPECT--
int(3)
/srv/w/index.php;main;foo 3
/srv/w/index.php;bar 1
/srv/w/index.php 2
--
int(3)
main;foo 3
/srv/w/index.php;bar 1
/srv/w/index.php 2
--
int(1000)
int(2)
int(1000)
int(1000)
int(1006)
int(0)

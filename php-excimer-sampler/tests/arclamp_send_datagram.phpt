--TEST--
excimer_arclamp_send(): UDP and unix datagrams carry whole lines, entry point prepended once
--EXTENSIONS--
excimer
--FILE--
<?php
$collapsed = "main;foo 3\n/srv/w/index.php;bar 1\n/srv/w/index.php 2\n";
$entry = '/srv/w/index.php';

$udp = stream_socket_server('udp://127.0.0.1:0', $errno, $errstr, STREAM_SERVER_BIND);
$port = parse_url('udp://' . stream_socket_get_name($udp, false), PHP_URL_PORT);
var_dump(excimer_arclamp_send("udp://127.0.0.1:$port", $collapsed, $entry));
echo stream_socket_recvfrom($udp, 65536), "\n--\n";

require_once __DIR__ . '/tempdir.inc';
$path = private_temp_dir('excimer-test') . '/ingest.sock';
$unix = stream_socket_server("udg://$path", $errno, $errstr, STREAM_SERVER_BIND);
var_dump(excimer_arclamp_send("unix://$path", $collapsed));
echo stream_socket_recvfrom($unix, 65536), "\n--\n";
unlink($path);

// Many lines are packed into datagrams of whole lines.
$many = '';
for ($i = 0; $i < 1000; $i++) {
    $many .= str_repeat('Frame' . $i . ';', 10) . "leaf 1\n";
}
var_dump(excimer_arclamp_send("udp://127.0.0.1:$port", $many, $entry));
$got = [];
$datagrams = 0;
$deadline = microtime(true) + 5;
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

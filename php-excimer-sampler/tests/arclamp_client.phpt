--TEST--
ArcLamp.php: collect() samples the request and sends stacks with the entry point; failures go to statsd
--EXTENSIONS--
excimer
--INI--
excimer.arclamp_timeout=0.1
excimer.arclamp_timeout_max=10
; the sender's one-line reports of failing and recovering (tested elsewhere)
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/../client/ArcLamp.php';
require __DIR__ . '/redis_helper.inc';

function udp_server(&$port) {
    $s = stream_socket_server('udp://127.0.0.1:0', $errno, $errstr, STREAM_SERVER_BIND);
    $port = (int)parse_url('udp://' . stream_socket_get_name($s, false), PHP_URL_PORT);
    return $s;
}
function receive_all($sock, float $seconds): array {
    $got = [];
    $deadline = microtime(true) + $seconds;
    while (microtime(true) < $deadline) {
        $r = [$sock]; $w = $e = null;
        if (stream_select($r, $w, $e, 0, 100000)) {
            $got[] = stream_socket_recvfrom($sock, 65536);
        }
    }
    return $got;
}

$sink = udp_server($port);
Wikimedia\ArcLamp::collect(['target' => "udp://127.0.0.1:$port", 'period' => 0.01,
                            'event-type' => EXCIMER_REAL]);
function busy_request(int $ms): void {
    $t = hrtime(true);
    while (hrtime(true) - $t < $ms * 1e6) {
        $x = md5((string)$t);
    }
}
busy_request(300);
$lines = [];
foreach (receive_all($sink, 0.5) as $d) {
    foreach (explode("\n", $d) as $l) {
        $lines[] = $l;
    }
}
$entry = realpath($_SERVER['SCRIPT_FILENAME']);
// Every line is a sample under the entry point (the profiler also samples
// this test while it waits for datagrams); most are in busy_request().
$in_busy = 0;
foreach ($lines as $l) {
    if (preg_match('/;busy_request ([0-9]+)$/', $l, $mm)) {
        $in_busy += (int)$mm[1];
    }
}
var_dump($in_busy >= 5);
var_dump(count(array_filter($lines, fn($l) => preg_match('/^' . preg_quote($entry, '/') . '[; ].* [1-9][0-9]*$/', $l))) === count($lines));

// The entry point is prepended once, never twice.
var_dump(Wikimedia\ArcLamp::withEntry("$entry;a 1", $entry) === "$entry;a 1");
var_dump(Wikimedia\ArcLamp::withEntry("a;b 1", $entry) === "$entry;a;b 1");

// A refused Redis: the request goes on, statsd hears about it. (A refusal
// comes at once: the generous timeout only keeps a slow sender thread, under
// valgrind on a busy machine, from turning it into a timeout.)
$statsd = udp_server($sport);
$prof = new ExcimerProfiler();
$prof->setPeriod(0.001);
$prof->setEventType(EXCIMER_REAL);
$prof->start();
$t = hrtime(true);
while (hrtime(true) - $t < 50e6) {
    $x = md5((string)$t);
}
$prof->stop();
Wikimedia\ArcLamp::flush($prof->getLog(), ['redis-port' => free_tcp_port(), 'redis-timeout' => 10,
                                          'statsd-host' => '127.0.0.1',
                                          'statsd-port' => $sport]);
var_dump(receive_all($statsd, 0.3));

// A Redis with nobody subscribed takes every line and hands it to no one:
// statsd hears how many were lost that way.
$redis = start_redis();
$lines = count(explode("\n", trim($prof->getLog()->formatCollapsed())));
Wikimedia\ArcLamp::flush($prof->getLog(), ['redis-port' => $redis['port'], 'redis-timeout' => 10,
                                          'statsd-host' => '127.0.0.1', 'statsd-port' => $sport]);
$got = receive_all($statsd, 0.3);
var_dump($got === ["MediaWiki.arclamp_client_error.unheard:$lines|c"] ?: $got);
echo "done\n";
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
array(1) {
  [0]=>
  string(42) "MediaWiki.arclamp_client_error.connect:1|c"
}
bool(true)
done

--TEST--
Request tiers: aggregates go to the transport as tiers/1 lines (status, then one per identity and tier), on flush and at exit
--EXTENSIONS--
excimer
--SKIPIF--
<?php if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed'); ?>
--INI--
excimer.tiers="db=query"
--FILE--
<?php
require __DIR__ . '/tiers_helpers.inc';
function query() { usleep(200); return 1; }

// No target: nothing is sent, the aggregates stay.
query();
var_dump(excimer_tiers_flush(), count(excimer_tiers_stats()));

$udp = stream_socket_server('udp://127.0.0.1:0', $errno, $errstr, STREAM_SERVER_BIND);
$port = parse_url('udp://' . stream_socket_get_name($udp, false), PHP_URL_PORT);
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-tiers');
file_put_contents("$dir/app.php", '<?php
function query() { usleep(200); return 1; }
excimer_tiers_set_identity($_GET["id"] ?? "view with space");
for ($i = 0; $i < 4; $i++) query();
');
// Three requests of one php-cgi process; a flush interval longer than the
// run: everything goes at the process's exit, in one window.
$out = cgi_requests("$dir/app.php", 3, ['excimer.tiers' => '"db=query"',
    'excimer.tiers_target' => "udp://127.0.0.1:$port", 'excimer.tiers_flush_interval' => 3600]);
$lines = receive_tier_lines($udp, 10, fn($l) => count($l) >= 3);
sort($lines);
$host = gethostname();
foreach ($lines as $l) {
    $f = explode(' ', $l);
    // tiers/1 KIND START END HOST PID ...
    var_dump($f[0], $f[1], $f[2] <= $f[3], $f[4] === str_replace(' ', '_', $host), (bool)preg_match('/^[1-9][0-9]*$/', $f[5]));
    if ($f[1] === 'agg') {
        [, , , , , , $identity, $tier, $calls, $total, $hist] = $f;
        echo "$identity $tier $calls\n";
        $sum = 0;
        $prev = -1;
        foreach (explode(',', $hist) as $b) {
            [$idx, $n] = explode(':', $b);
            var_dump($idx > $prev) ;
            $prev = $idx;
            $sum += $n;
        }
        var_dump($sum == $calls, $total >= $calls * 200000 * ($tier === 'db' ? 1 : 0));
    } else {
        // REQUESTS TRACED TRIPS RESUMES PAUSED SKIPPED
        echo implode(' ', array_slice($f, 6)), "\n";
    }
}
?>
--EXPECTF--
int(0)
int(1)
string(7) "tiers/1"
string(3) "agg"
bool(true)
bool(true)
bool(true)
view%20with%20space _total 3
%A
bool(true)
bool(true)
string(7) "tiers/1"
string(3) "agg"
bool(true)
bool(true)
bool(true)
view%20with%20space db 12
%A
bool(true)
bool(true)
string(7) "tiers/1"
string(6) "status"
bool(true)
bool(true)
bool(true)
3 3 0 0 0 0

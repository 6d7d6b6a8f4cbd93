--TEST--
Zero-code collection: a request hands its samples to the sender thread and ends; a Redis that never answers holds no request, and its lines are counted as failed; requests' samples go in batches
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed');
if (!is_executable('/usr/bin/redis-server')) die('skip redis-server not installed');
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the requests under test run outside valgrind');
?>
--FILE--
<?php
preg_match('#\s(/\S*excimer\.so)$#m', file_get_contents('/proc/self/maps'), $m);
$so = $m[1];
require __DIR__ . '/redis_helper.inc';
$dir = private_temp_dir('excimer-nowait');
$starts = "$dir/starts";
$script = "$dir/index.php";
// Each request: note when it starts, work 100 ms (about 10 samples at 10 ms),
// and at its end report what the sender has seen so far.
file_put_contents($script, '<?php
file_put_contents(' . var_export($starts, true) . ', hrtime(true) . "\n", FILE_APPEND);
function render() { $t = hrtime(true); while (hrtime(true) - $t < 100e6) { $x = md5("x"); } }
render();
register_shutdown_function(function () { echo json_encode(excimer_arclamp_stats()), "\n"; });');

// php-cgi -T N serves the script N times in one process: N requests, each
// with its own startup and shutdown, as a php-fpm worker does.
function serve(string $so, string $script, string $target, float $timeout, int $n, float $delay): array {
    $cmd = ['/usr/bin/php-cgi8.2', '-n', '-d', "extension=$so", '-d', "excimer.arclamp_target=\"$target\"",
            '-d', 'excimer.arclamp_period=0.01', '-d', 'excimer.arclamp_event_type=real',
            '-d', 'excimer.arclamp_timeout_max=10', '-d', "excimer.arclamp_timeout=$timeout", '-d', "excimer.arclamp_send_delay=$delay",
            '-d', 'error_log=/dev/null', '-T', (string)$n, $script];
    $t = hrtime(true);
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes,
                   null, ['PATH' => '/usr/bin:/bin']);
    $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
    proc_close($p);
    return [(hrtime(true) - $t) / 1e9, $out];
}

// A Redis that accepts connections and never answers (stopped); each
// request's samples are sent right after it (no batching delay).
$redis = start_redis();
$pid = proc_get_status($redis['proc'])['pid'];
posix_kill_or_terminate($redis['proc'], $pid, 19); // SIGSTOP
[$took, $out] = serve($so, $script, "redis://127.0.0.1:{$redis['port']}/excimer", 0.15, 5, 0);
$t = array_map('intval', file($starts));
$gaps = [];
for ($i = 1; $i < count($t); $i++) {
    $gaps[] = ($t[$i] - $t[$i - 1]) / 1e9;
}
// Request after request starts 100 ms apart: none waited for its send
// (which takes the whole 0.15 s timeout against this Redis: a request
// that waited would start 0.25 s after the one before).
var_dump(count($gaps) === 4, max($gaps) < 0.2);
// The process ends once the queue is done: within about one timeout.
var_dump($took < 2.0);
// By the last request, the sends of the first ones have timed out: counted.
preg_match_all('/^\{.*\}$/m', $out, $stats);
$last = json_decode(end($stats[0]), true);
var_dump($last['failed'] > 0 && $last['errors']['timeout'] > 0 && $last['sent'] === 0);
posix_kill_or_terminate($redis['proc'], $pid, 18); // SIGCONT
stop_redis($redis);

// A working Redis, and the default delay of 1 s: the five requests' samples
// wait for each other and go together when the process ends.
@unlink($starts);
$redis = start_redis();
[$took, $out] = serve($so, $script, "redis://127.0.0.1:{$redis['port']}/served?stream=1", 10, 5, 1);
$c = stream_socket_client("tcp://127.0.0.1:{$redis['port']}", $errno, $errstr, 2);
fwrite($c, resp_command(['XRANGE', 'served', '-', '+']));
$entries = resp_read($c);
$samples = 0;
foreach ($entries as [$id, $fields]) {
    foreach (explode("\n", $fields[1]) as $line) {
        $samples += (int)substr($line, strrpos($line, ' ') + 1);
    }
}
// About 10 samples of 10 ms per 100 ms request (a loaded machine takes
// fewer), all in one message: one XADD for the five requests.
var_dump(count($entries), $samples >= 5 * 5);
preg_match_all('/^\{.*\}$/m', $out, $stats);
$last = json_decode(end($stats[0]), true);
// At the end of the last request, the four before it still wait (0.4 s < 1 s).
var_dump($last['sent'], $last['queued'] > 0);
stop_redis($redis);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
int(1)
bool(true)
int(0)
bool(true)

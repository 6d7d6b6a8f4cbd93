--TEST--
Zero-code collection: excimer_arclamp_skip_request() leaves the calling request out (samples and hierarchical run), and only it
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed');
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the request under test runs outside valgrind');
?>
--FILE--
<?php
// Not collected here (no target): nothing to skip.
var_dump(excimer_arclamp_skip_request());

preg_match('#\s(/\S*excimer\.so)$#m', file_get_contents('/proc/self/maps'), $m);
$so = $m[1];
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-skip');
$sock = "$dir/ingest.sock";
$server = stream_socket_server("udg://$sock", $errno, $errstr, STREAM_SERVER_BIND);
file_put_contents("$dir/page.php", '<?php
function busy() { $t = hrtime(true); while (hrtime(true) - $t < 100e6) { $x = md5("x"); } }
busy();
if (isset($_GET["skip"])) { var_dump(excimer_arclamp_skip_request(), excimer_arclamp_skip_request()); }
busy();');

function serve(string $so, string $dir, string $sock, string $query): string {
    $cmd = ['/usr/bin/php-cgi8.2', '-n', '-d', "extension=$so", '-d', "excimer.arclamp_target=unix://$sock",
            '-d', 'excimer.arclamp_period=0.01', '-d', 'excimer.arclamp_event_type=real',
            '-d', 'excimer.hprof_sample_rate=1'];
    $env = ['PATH' => '/usr/bin:/bin', 'REDIRECT_STATUS' => '1', 'REQUEST_METHOD' => 'GET',
            'QUERY_STRING' => $query, 'SCRIPT_FILENAME' => "$dir/page.php"];
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
    $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
    proc_close($p);
    return preg_replace('/^.*?\r\n\r\n/s', '', $out);
}
function received($server): string {
    $got = '';
    $deadline = microtime(true) + 0.5;
    while (microtime(true) < $deadline) {
        $r = [$server]; $w = $e = null;
        if (stream_select($r, $w, $e, 0, 100000)) {
            $got .= stream_socket_recvfrom($server, 200000);
        }
    }
    return $got;
}
echo serve($so, $dir, $sock, 'skip=1');
echo "skipped request sent: ", strlen(received($server)), " bytes\n";
echo serve($so, $dir, $sock, '');
$next = received($server);
echo "next request sent samples of busy(): ", var_export(str_contains($next, 'page.php;busy '), true), "\n";
require_once __DIR__ . '/hprof_helpers.inc';
$runs = hprof_runs_from_lines(explode("\n", $next));
$run = reset($runs);
echo "and its run: ", var_export(count($runs) === 1 && (bool)preg_grep('/^run_init::\S+page\.php==>busy$/', array_keys($run['arcs'])), true), "\n";
?>
--EXPECT--
bool(false)
bool(true)
bool(false)
skipped request sent: 0 bytes
next request sent samples of busy(): true
and its run: true

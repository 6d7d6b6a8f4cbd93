--TEST--
Zero-code hierarchical profiling: a large run (thousands of arcs, several datagrams of up to 200 KB on a unix socket, more than the kernel lets one socket have in flight) arrives whole: each datagram waits for the receiver to make room, within excimer.arclamp_timeout, instead of failing at once
--EXTENSIONS--
excimer
--SKIPIF--
<?php
// The profiled request runs in a child php, outside valgrind.
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the request under test runs outside valgrind');
?>
--FILE--
<?php
require __DIR__ . '/hprof_helpers.inc';
require_once __DIR__ . '/tempdir.inc';
preg_match('#\s(/\S*/)excimer\.so$#m', file_get_contents('/proc/self/maps'), $m);
$dir = private_temp_dir('excimer-large-run');
$sock = "$dir/ingest.sock";
$server = stream_socket_server("udg://$sock", $errno, $errstr, STREAM_SERVER_BIND);
/* 6,000 distinct functions with long names: about 1 MB of arc lines */
$script = "$dir/index.php";
file_put_contents($script, '<?php
for ($i = 0; $i < 6000; $i++)
    eval("function a_function_with_quite_a_long_name_as_frameworks_have_them_$i() { return $i; }");
for ($i = 0; $i < 6000; $i++)
    ("a_function_with_quite_a_long_name_as_frameworks_have_them_$i")();
echo "served\n";');
$cmd = [PHP_BINARY, '-n', '-d', "extension={$m[1]}excimer.so",
        '-d', 'excimer.hprof_sample_rate=1', '-d', "excimer.hprof_target=unix://$sock",
        '-d', 'excimer.hprof_max_bytes=0', '-d', 'excimer.arclamp_send_delay=0',
        '-d', 'excimer.arclamp_timeout_max=30', '-d', 'excimer.arclamp_timeout=30', $script];
$p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
/* read as a busy receiver would: one datagram now and then */
$lines = [];
$datagrams = 0;
$deadline = microtime(true) + 50;
while (microtime(true) < $deadline && !preg_grep('#^xhprof/\d \S+ end #', array_slice($lines, -1))) {
    $r = [$server]; $w = $e = null;
    if (stream_select($r, $w, $e, 0, 100000)) {
        $datagrams++;
        usleep(20000);
        array_push($lines, ...explode("\n", stream_socket_recvfrom($server, 1 << 20)));
    }
}
echo trim(stream_get_contents($pipes[1]) . stream_get_contents($pipes[2])), "\n";
proc_close($p);
$runs = hprof_runs_from_lines($lines);
var_dump(count($runs), $datagrams >= 3);
$run = reset($runs);
var_dump(count($run['arcs']) > 6000, $run['end'] === [count($run['arcs']), 0]);
hprof_check_arcs($run['arcs']);
?>
--EXPECT--
served
int(1)
bool(true)
bool(true)
bool(true)

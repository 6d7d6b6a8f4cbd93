--TEST--
Zero-code hierarchical profiling: with excimer.hprof_sample_rate=1 a request's run is sent at its end in the documented line format (xhprof/2: begin, each function named once before the arcs that use it, arcs heaviest first, end with the count left out past excimer.hprof_max_bytes) and written to xhprof.output_dir as <runid>.xhprof.xhprof (serialize() of the raw array); rate 0 profiles nothing
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
preg_match('#\s(/\S*/)excimer\.so$#m', file_get_contents('/proc/self/maps'), $m);
$lib = $m[1];
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-hprof');
$sock = "$dir/ingest.sock";
$server = stream_socket_server("udg://$sock", $errno, $errstr, STREAM_SERVER_BIND);
mkdir("$dir/runs");
$script = "$dir/index.php";
file_put_contents($script, '<?php
function leaf() { return str_repeat("x", 3); }
function work() { for ($i = 0; $i < 5; $i++) { leaf(); } }
work();
echo "served\n";');

function run_php(string $lib, string $script, array $ini): string {
    $cmd = [PHP_BINARY, '-n', '-d', "extension={$lib}excimer.so", '-d', "extension={$lib}xhprof.so"];
    foreach ($ini as $k => $v) {
        array_push($cmd, '-d', "$k=$v");
    }
    $cmd[] = $script;
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
    proc_close($p);
    return $out;
}
function receive_lines($server, float $seconds): array {
    $lines = [];
    $deadline = microtime(true) + $seconds;
    while (microtime(true) < $deadline) {
        $r = [$server]; $w = $e = null;
        if (stream_select($r, $w, $e, 0, 100000)) {
            array_push($lines, ...explode("\n", stream_socket_recvfrom($server, 200000)));
        }
    }
    return array_values(array_filter($lines, 'strlen'));
}

$ini = ['excimer.hprof_sample_rate' => '1', 'excimer.hprof_target' => "unix://$sock",
        'excimer.hprof_flags' => 'cpu,memory', 'xhprof.output_dir' => "$dir/runs",
        'excimer.arclamp_send_delay' => '0'];
var_dump(trim(run_php($lib, $script, $ini)));
$lines = receive_lines($server, 0.5);
[$tag, $runid, $kind, $ts, $host, $flags, $entry] = explode(' ', $lines[0], 7);
var_dump($tag, $kind, abs($ts - time()) < 60, $flags, $entry === realpath($script));
foreach (array_slice($lines, 1, -1) as $l) {
    if (!preg_match("#^xhprof/2 $runid (fn|arc) #", $l)) { echo "bad line: $l\n"; }
}
/* each name once, before the first arc using it; arcs heaviest first */
$fns = preg_grep('#^xhprof/2 \S+ fn #', $lines);
$names = array_map(fn($l) => explode(' ', $l, 5)[4], $fns);
var_dump(count($names) === count(array_unique($names)));
$wts = array_map(fn($l) => (int)explode(' ', $l)[5], preg_grep('#^xhprof/2 \S+ arc #', $lines));
$sorted = $wts;
rsort($sorted);
var_dump($wts === array_values($sorted) || array_values($wts) === $sorted);
$arcs = array_map(fn($v) => $v[0], hprof_runs_from_lines($lines)[$runid]['arcs']);
hprof_check_arcs(hprof_runs_from_lines($lines)[$runid]['arcs']);
/* from RINIT on: the script's compile and top-level code are in the run */
$rs = realpath($script);
var_dump($arcs["main()==>run_init::$rs"], $arcs["run_init::$rs==>work"], $arcs['work==>leaf'],
         $arcs['leaf==>str_repeat'], $arcs['main()'], isset($arcs["main()==>load::$rs"]));
var_dump(end($lines) === "xhprof/2 $runid end " . count($arcs) . " 0");

// The same run in the output directory, as xhprof_html reads it.
$files = glob("$dir/runs/*.xhprof.xhprof");
var_dump(count($files), basename($files[0]) === "$runid.xhprof.xhprof");
$saved = unserialize(file_get_contents($files[0]));
var_dump($saved['work==>leaf']['ct'], array_keys($saved['main()']));

// A cap of a few hundred bytes: the heaviest arcs go, the rest are counted.
$ini['excimer.hprof_max_bytes'] = '400';
run_php($lib, $script, $ini);
$lines = receive_lines($server, 0.5);
$end = explode(' ', end($lines));
$sent = count(preg_grep('#^xhprof/2 \S+ arc #', $lines));
var_dump($sent < count($arcs), (int)$end[3] === $sent, (int)$end[4] === count($arcs) - $sent,
         strlen(implode("\n", $lines)) <= 400);

// Rate 0: nothing profiled, nothing sent.
$ini['excimer.hprof_sample_rate'] = '0';
run_php($lib, $script, $ini);
var_dump(receive_lines($server, 0.3));
?>
--EXPECT--
string(6) "served"
string(8) "xhprof/2"
string(5) "begin"
bool(true)
string(13) "wt,cpu,mu,pmu"
bool(true)
bool(true)
bool(true)
int(1)
int(1)
int(5)
int(5)
int(1)
bool(true)
bool(true)
int(1)
bool(true)
int(5)
array(5) {
  [0]=>
  string(2) "ct"
  [1]=>
  string(2) "wt"
  [2]=>
  string(3) "cpu"
  [3]=>
  string(2) "mu"
  [4]=>
  string(3) "pmu"
}
bool(true)
bool(true)
bool(true)
bool(true)
array(0) {
}

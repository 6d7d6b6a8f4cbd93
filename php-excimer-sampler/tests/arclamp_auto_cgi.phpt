--TEST--
Zero-code collection: php-cgi with excimer.arclamp_target samples a request and sends its stacks
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed');
// The sampled request runs in a child php-cgi, outside valgrind: under -m this
// test would only time the child against a slowed-down parent.
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the request under test runs outside valgrind');
?>
--FILE--
<?php
// The module file this test runs with: php-cgi loads the same one.
preg_match('#\s(/\S*excimer\.so)$#m', file_get_contents('/proc/self/maps'), $m);
$so = $m[1];
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-auto');
$sock = "$dir/ingest.sock";
$server = stream_socket_server("udg://$sock", $errno, $errstr, STREAM_SERVER_BIND);
$script = "$dir/index.php";
file_put_contents($script, '<?php
function render() { $t = hrtime(true); while (hrtime(true) - $t < 250e6) { $x = md5("x"); } }
render();
echo "served\n";');

function serve(string $so, string $script, array $ini): string {
    $cmd = ['/usr/bin/php-cgi8.2', '-n', '-d', "extension=$so"];
    foreach ($ini as $k => $v) {
        array_push($cmd, '-d', "$k=$v");
    }
    $cmd[] = $script;
    // A clean environment: run-tests' CGI variables would make php-cgi run this test.
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes,
                   null, ['PATH' => '/usr/bin:/bin']);
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
    return $lines;
}

$out = serve($so, $script, ['excimer.arclamp_target' => "unix://$sock",
                            'excimer.arclamp_period' => '0.01', 'excimer.arclamp_event_type' => 'real']);
var_dump(str_contains($out, 'served'));
$lines = receive_lines($server, 0.5);
$entry = realpath($script);
// Every line is a sample under the entry point; most are inside render()
// (formatCollapsed() merges equal stacks: add up the counts).
$in_render = 0;
foreach ($lines as $l) {
    if (preg_match('/;render ([0-9]+)$/', $l, $mm)) {
        $in_render += (int)$mm[1];
    }
}
var_dump($in_render >= 5);
var_dump(count(array_filter($lines, fn($l) => preg_match('/^' . preg_quote($entry, '/') . '[; ].* [1-9][0-9]*$/', $l)
    || preg_match('/^' . preg_quote($entry, '/') . ' [1-9][0-9]*$/', $l))) === count($lines));

// A request that took no sample sends nothing; no target, nothing either.
serve($so, $script, ['excimer.arclamp_target' => "unix://$sock", 'excimer.arclamp_period' => '1000']);
serve($so, $script, ['excimer.arclamp_period' => '0.01']);
var_dump(receive_lines($server, 0.3));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
array(0) {
}

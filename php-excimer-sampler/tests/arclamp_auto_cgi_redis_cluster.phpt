--TEST--
Zero-code collection into a real Redis Cluster: php-cgi -T 5 with excimer.arclamp_target=redis-cluster://...&stream=1 puts every request's samples in the stream excimer{K} of this host's shard, on its master (the seed is another); hierarchical runs (excimer.hprof_target unset) go to xhprof{K}, whole, and request tier lines (excimer.tiers_target unset) to tiers{K}
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed');
if (!is_executable('/usr/bin/redis-server') || !is_executable('/usr/bin/redis-cli')) die('skip redis-server or redis-cli not installed');
// The sampled requests run in a child php-cgi, outside valgrind.
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the requests under test run outside valgrind');
?>
--FILE--
<?php
preg_match('#\s(/\S*excimer\.so)$#m', file_get_contents('/proc/self/maps'), $m);
$so = $m[1];
require __DIR__ . '/redis_cluster_helper.inc';
$cluster = start_redis_cluster();
$shards = 8;
$k = crc16_xmodem(gethostname()) % $shards;
$owner = cluster_owner($cluster, "excimer{{$k}}");
$seed = current(array_diff($cluster['ports'], [$owner]));

$dir = private_temp_dir('excimer-cluster-cgi');
$script = "$dir/index.php";
// Each request calls a function of its own, req0 .. req4: its samples
// say which request they came from.
file_put_contents($script, '<?php
function spin() { $t = hrtime(true); while (hrtime(true) - $t < 150e6) { $x = md5("x"); } }
function req0() { spin(); } function req1() { spin(); } function req2() { spin(); }
function req3() { spin(); } function req4() { spin(); }
function query() { usleep(100); }
query();
$f = __DIR__ . "/count";
$n = (int)@file_get_contents($f);
file_put_contents($f, $n + 1);
("req$n")();
echo "served $n\n";');

$cmd = ['/usr/bin/php-cgi8.2', '-n', '-d', "extension=$so", '-T', '5',
        // quoted: '=' and '?' are INI syntax unquoted
        '-d', "excimer.arclamp_target=\"redis-cluster://127.0.0.1:$seed/excimer?shards=$shards&stream=1\"",
        '-d', 'excimer.arclamp_period=0.01', '-d', 'excimer.arclamp_event_type=real',
        '-d', 'excimer.arclamp_timeout=20', '-d', 'excimer.hprof_sample_rate=1',
        '-d', 'excimer.tiers="db=query"', '-d', 'excimer.tiers_flush_interval=3600', $script];
$p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes,
               null, ['PATH' => '/usr/bin:/bin']);
$out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
proc_close($p);
var_dump(substr_count($out, 'served '));

// php-cgi delivers what is queued before it exits: the stream is complete.
$samples = [];
foreach (cluster_ask($owner, ['XRANGE', "excimer{{$k}}", '-', '+']) as [$id, $fields]) {
    foreach (explode("\n", $fields[1]) as $line) {
        if (preg_match('/;(req[0-4])(;.*)? ([0-9]+)$/', $line, $mm)) {
            $samples[$mm[1]] = ($samples[$mm[1]] ?? 0) + (int)$mm[3];
        }
    }
}
ksort($samples);
var_dump(array_keys($samples), min($samples) >= 3);

// Every request's run, begin to end, in xhprof{K}.
$runs = [];
foreach (cluster_ask($owner, ['XRANGE', "xhprof{{$k}}", '-', '+']) as [$id, $fields]) {
    foreach (explode("\n", $fields[1]) as $line) {
        [, $runid, $what] = explode(' ', $line, 4);
        if ($what === 'begin' || $what === 'end') {
            $runs[$runid][] = $what;
        }
    }
}
var_dump(count($runs), array_values(array_unique(array_map(fn($r) => implode(",", $r), $runs))));

// The tier lines of the five requests, sent at the process's exit: one
// call of the tier "db" each.
$calls = 0;
foreach (cluster_ask($owner, ['XRANGE', "tiers{{$k}}", '-', '+']) as [$id, $fields]) {
    foreach (explode("\n", $fields[1]) as $line) {
        $f = explode(' ', $line);
        if ($f[0] === 'tiers/1' && $f[1] === 'agg' && $f[7] === 'db') {
            $calls += (int)$f[8];
        }
    }
}
var_dump($calls);
stop_redis_cluster($cluster);
?>
--EXPECT--
int(5)
array(5) {
  [0]=>
  string(4) "req0"
  [1]=>
  string(4) "req1"
  [2]=>
  string(4) "req2"
  [3]=>
  string(4) "req3"
  [4]=>
  string(4) "req4"
}
bool(true)
int(5)
array(1) {
  [0]=>
  string(9) "begin,end"
}
int(5)

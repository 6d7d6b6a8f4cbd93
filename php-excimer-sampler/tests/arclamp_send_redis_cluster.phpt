--TEST--
excimer_arclamp_send() to a real 3-master Redis Cluster (redis-cluster://): SPUBLISH and XADD on the shard key CHANNEL{K}, reaching its master from a seed that does not serve it; K is the host's (crc16(hostname) % shards) unless shard=K; 0 subscribers is unheard; a pcntl_fork() child sends on connections of its own
--EXTENSIONS--
excimer
--INI--
excimer.arclamp_timeout_max=20
; delivery is under test here, not the deadline (valgrind is ~50x slower)
excimer.arclamp_timeout=20
--SKIPIF--
<?php
if (!is_executable('/usr/bin/redis-server') || !is_executable('/usr/bin/redis-cli')) die('skip redis-server or redis-cli not installed');
?>
--FILE--
<?php
require __DIR__ . '/redis_cluster_helper.inc';
$cluster = start_redis_cluster();
$shards = 16;

// A pinned shard whose master is not the seed: the client must find it.
$seed = $cluster['ports'][0];
for ($k = 0; $k < $shards && cluster_owner($cluster, "excimer{{$k}}") === $seed; $k++);
$owner = cluster_owner($cluster, "excimer{{$k}}");
var_dump($k < $shards && $owner !== $seed);

$sub = stream_socket_client("tcp://127.0.0.1:$owner", $errno, $errstr, 5);
stream_set_timeout($sub, 20);
fwrite($sub, resp_command(['SSUBSCRIBE', "excimer{{$k}}"]));
var_dump(resp_read($sub) === ['ssubscribe', "excimer{{$k}}", 1]);

$collapsed = "a;b 1\n/srv/w/api.php;c 2\n";
$target = "redis-cluster://127.0.0.1:$seed/excimer?shards=$shards&shard=$k";
var_dump(excimer_arclamp_send($target, $collapsed, '/srv/w/api.php'));
var_dump(resp_read($sub) === ['smessage', "excimer{{$k}}", "/srv/w/api.php;a;b 1\n/srv/w/api.php;c 2"]);

// Streams: XADD CHANNEL{K} on its master, a call's lines in one entry.
var_dump(excimer_arclamp_send("$target&stream=1", $collapsed, '/srv/w/api.php'));
var_dump(cluster_ask($owner, ['XRANGE', "excimer{{$k}}", '-', '+'])[0][1]
         === ['sample', "/srv/w/api.php;a;b 1\n/srv/w/api.php;c 2"]);

// Without shard=: this host's shard, crc16(hostname) % shards, whatever
// the seed (here every node, the owner last).
$mine = crc16_xmodem(gethostname()) % $shards;
$owner_mine = cluster_owner($cluster, "excimer{{$mine}}");
$seeds = array_diff($cluster['ports'], [$owner_mine]);
$seeds[] = $owner_mine;
$list = implode(',', array_map(fn($p) => "127.0.0.1:$p", $seeds));
var_dump(excimer_arclamp_send("redis-cluster://$list/excimer?stream=1&shards=$shards", "x 1\ny 2\n"));
var_dump(cluster_ask($owner_mine, ['XRANGE', "excimer{{$mine}}", '-', '+'])[$mine === $k ? 1 : 0][1]
         === ['sample', "x 1\ny 2"]);

// Nobody subscribes to another shard: accepted, dropped, counted unheard.
$other = ($k + 1) % $shards;
var_dump(excimer_arclamp_send("redis-cluster://127.0.0.1:$seed/excimer?shards=$shards&shard=$other", "u 1\n"));
$s = excimer_arclamp_stats();
var_dump($s['sent'], $s['failed'], $s['unheard'], $s['errors']);

// pcntl_fork(): the child sends on connections of its own, never on the
// parent's (whose replies it would read): every line arrives once.
$rounds = function_exists('pcntl_fork') ? 20 : 0;
$forked = "redis-cluster://127.0.0.1:$seed/forked?shards=$shards&shard=$k&stream=1";
for ($i = 0; $i < $rounds; $i++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        pcntl_exec(excimer_arclamp_send($forked, "c;round_$i 1\n") === 1 ? '/bin/true' : '/bin/false');
    }
    $parent_ok = excimer_arclamp_send($forked, "p;round_$i 1\n") === 1;
    pcntl_waitpid($pid, $status);
    if (!$parent_ok || !pcntl_wifexited($status) || pcntl_wexitstatus($status) !== 0) {
        echo "round $i failed\n";
    }
}
if ($rounds) {
    $lines = array_map(fn($e) => $e[1][1], cluster_ask(cluster_owner($cluster, "forked{{$k}}"),
                                                       ['XRANGE', "forked{{$k}}", '-', '+']));
    sort($lines);
    $want = [];
    for ($i = 0; $i < $rounds; $i++) {
        array_push($want, "c;round_$i 1", "p;round_$i 1");
    }
    sort($want);
    var_dump($lines === $want);
} else {
    var_dump(true);
}
stop_redis_cluster($cluster);
?>
--EXPECT--
bool(true)
bool(true)
int(2)
bool(true)
int(2)
bool(true)
int(2)
bool(true)
int(1)
int(7)
int(0)
int(1)
array(5) {
  ["connect"]=>
  int(0)
  ["timeout"]=>
  int(0)
  ["send"]=>
  int(0)
  ["reply"]=>
  int(0)
  ["backlog"]=>
  int(0)
}
bool(true)

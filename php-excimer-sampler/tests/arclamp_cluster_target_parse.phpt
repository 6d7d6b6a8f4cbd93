--TEST--
redis-cluster:// targets: well-formed ones are taken (a send to seeds nobody listens on fails to connect, counted), malformed ones warn with the reason (shards missing, 0 or over 1024, shard not below shards, a bad seed, db=, no channel, braces in the channel); a failed connect is followed by the backoff of redis://
--EXTENSIONS--
excimer
--INI--
excimer.arclamp_timeout_max=10
; a refused connect fails at once; generous for valgrind
excimer.arclamp_timeout=10
--FILE--
<?php
require __DIR__ . '/redis_helper.inc';
// (the failing seeds' news goes to a log of its own, not the output)
ini_set('error_log', private_temp_dir('excimer-log') . '/php-error.log');
$p = free_tcp_port();
$q = free_tcp_port();

echo "-- taken\n";
foreach (["redis-cluster://127.0.0.1:$p/excimer?shards=1",
          "redis-cluster://127.0.0.1:$p,127.0.0.1:$q/excimer?shards=1024&stream=1",
          "redis-cluster://127.0.0.1:$p/excimer?shards=4&shard=3",
          "redis-cluster://127.0.0.1:$p/excimer?shard=0&stream=0&shards=2",
          "redis-cluster://arclamp:p%40ss@127.0.0.1:$p/excimer?shards=8",
          "redis-cluster://:pw@[::1]:$p,localhost:$q/ex%2Fc?shards=3"] as $t) {
    $before = excimer_arclamp_stats()['errors']['connect'];
    $sent = excimer_arclamp_send($t, "a 1\n");
    echo $sent, ' ', excimer_arclamp_stats()['errors']['connect'] - $before, "\n";
}

// Right after a failed connect the same target waits out a backoff, as
// redis:// does: the next send fails at once, counted as connect.
$before = excimer_arclamp_stats()['errors']['connect'];
var_dump(excimer_arclamp_send("redis-cluster://:pw@[::1]:$p,localhost:$q/ex%2Fc?shards=3", "b 1\n"));
$s = excimer_arclamp_stats();
$valgrind = getenv('USE_ZEND_ALLOC') === '0'; // (its thread may lag past the 50 ms)
var_dump($s['errors']['connect'] - $before, str_starts_with($s['last_error'], 'not retried for ') || $valgrind);

echo "-- refused\n";
foreach (["redis-cluster://127.0.0.1:$p/excimer",
          "redis-cluster://127.0.0.1:$p/excimer?shards=0",
          "redis-cluster://127.0.0.1:$p/excimer?shards=1025",
          "redis-cluster://127.0.0.1:$p/excimer?shards=-1",
          "redis-cluster://127.0.0.1:$p/excimer?shards=4&shard=4",
          "redis-cluster://127.0.0.1:$p/excimer?shards=4&shard=x",
          "redis-cluster://127.0.0.1/excimer?shards=4",
          "redis-cluster://127.0.0.1:$p,/excimer?shards=4",
          "redis-cluster://127.0.0.1:99999/excimer?shards=4",
          "redis-cluster:///excimer?shards=4",
          "redis-cluster://127.0.0.1:$p/?shards=4",
          "redis-cluster://127.0.0.1:$p?shards=4",
          "redis-cluster://127.0.0.1:$p/ex%7Bc?shards=4",
          "redis-cluster://127.0.0.1:$p/excimer?shards=4&db=1",
          "redis-cluster://127.0.0.1:$p/excimer?shards=4&channel=x",
          "redis://127.0.0.1:$p/excimer?shards=4"] as $t) {
    var_dump(excimer_arclamp_send($t, "a 1\n"));
}
$s = excimer_arclamp_stats();
var_dump($s['sent'], $s['failed'], $s['errors']['connect']);
?>
--EXPECTF--
-- taken
0 1
0 1
0 1
0 1
0 1
0 1
int(0)
int(1)
bool(true)
-- refused

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/excimer": expected redis://HOST:PORT/CHANNEL[?stream=1], redis+unix:///PATH?channel=CHANNEL, redis-cluster://HOST:PORT[,HOST:PORT...]/CHANNEL?shards=N[&stream=1], udp://HOST:PORT or unix:///PATH: shards=N, 1 to 1024, is required in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/excimer?shards=0": expected %s: shards=N, 1 to 1024, is required in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/excimer?shards=1025": expected %s: shards=N, 1 to 1024, is required in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/excimer?shards=-1": expected %s or unix:///PATH in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/excimer?shards=4&shard=4": expected %s: shard=4 is not below shards=4 in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/excimer?shards=4&shard=x": expected %s or unix:///PATH in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1/excimer?shards=4": expected %s: %s in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d,/excimer?shards=4": expected %s: %s in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:99999/excimer?shards=4": expected %s: %s in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster:///excimer?shards=4": expected %s: %s in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/?shards=4": expected %s or unix:///PATH in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d?shards=4": expected %s or unix:///PATH in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/ex%s?shards=4": expected %s: the channel may not hold '{' or '}' (its shard keys are CHANNEL{K}) in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/excimer?shards=4&db=1": expected %s or unix:///PATH in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis-cluster://127.0.0.1:%d/excimer?shards=4&channel=x": expected %s or unix:///PATH in %s on line %d
int(0)

Warning: excimer_arclamp_send(): invalid Arc Lamp target "redis://127.0.0.1:%d/excimer?shards=4": expected %s or unix:///PATH in %s on line %d
int(0)
int(0)
int(7)
int(7)

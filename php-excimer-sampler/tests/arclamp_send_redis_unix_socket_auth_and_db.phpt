--TEST--
excimer_arclamp_send(): Redis on a unix socket, AUTH (user and password, %-escaped) and SELECT from the target; refusals counted with their cause; malformed targets warn
--EXTENSIONS--
excimer
--SKIPIF--
<?php if (!is_executable('/usr/bin/redis-server')) die('skip redis-server not installed'); ?>
--INI--
excimer.arclamp_timeout_max=10
excimer.arclamp_timeout=10
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/redis_helper.inc';
$sock = private_temp_dir('excimer-rsock') . '/redis.sock';
$redis = start_redis(['--unixsocket', $sock, '--unixsocketperm', '700',
                      '--requirepass', 'p@ss:word/1']);
$port = $redis['port'];

// One message (two lines) as XADD in database 2, over the unix socket.
$target = "redis+unix://:p%40ss%3Aword%2F1@$sock?channel=ex%2Dcimer&stream=1&db=2";
var_dump(excimer_arclamp_send($target, "a;b 1\nc 1\n", '/srv/w/index.php'));
$c = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 2);
foreach ([['AUTH', 'p@ss:word/1'], ['SELECT', '2'], ['XRANGE', 'ex-cimer', '-', '+'],
          ['SELECT', '0'], ['EXISTS', 'ex-cimer']] as $cmd) {
    fwrite($c, resp_command($cmd));
    $r = resp_read($c);
    if ($cmd[0] === 'XRANGE') {
        var_dump(count($r), $r[0][1][1]);
    } elseif ($cmd[0] === 'EXISTS') {
        var_dump($r); // nothing in database 0
    }
}

// A wrong password: refused, counted as a connect error with Redis's words.
var_dump(excimer_arclamp_send("redis+unix://:wrong@$sock?channel=excimer", "x 1\n"));
$s = excimer_arclamp_stats();
var_dump($s['errors']['connect'], str_contains($s['last_error'], 'AUTH refused: WRONGPASS'));

// TCP with an ACL user name, PUBLISH (nobody listens: unheard).
var_dump(excimer_arclamp_send("redis://default:p%40ss%3Aword%2F1@127.0.0.1:$port/excimer", "d 1\n"));
var_dump(excimer_arclamp_stats()['unheard']);

// Malformed targets: a warning each, nothing sent, nothing counted.
$bad = ["redis+unix://$sock", "redis+unix://relative.sock?channel=x", "redis://127.0.0.1:$port/c?db=-1",
        "redis://127.0.0.1:$port/c?db=two", "redis://127.0.0.1:$port/c?color=red",
        "redis://user@127.0.0.1:$port/c", "redis://:%zz@127.0.0.1:$port/c", "redis://::1:$port/c",
        "redis://127.0.0.1:$port/", "redis://127.0.0.1:$port/c?channel=d", "redis://:p%00w@127.0.0.1:$port/c"];
$warnings = 0;
set_error_handler(function ($no, $str) use (&$warnings) {
    $warnings += str_contains($str, 'invalid Arc Lamp target');
    return true;
});
$sent = 0;
foreach ($bad as $uri) {
    $sent += excimer_arclamp_send($uri, "x 1\n");
}
restore_error_handler();
var_dump($warnings === count($bad), $sent);
$s = excimer_arclamp_stats();
var_dump($s['sent'], $s['failed']);
stop_redis($redis);
?>
--EXPECT--
int(2)
int(1)
string(43) "/srv/w/index.php;a;b 1
/srv/w/index.php;c 1"
int(0)
int(0)
int(1)
bool(true)
int(1)
int(1)
bool(true)
int(0)
int(3)
int(1)

--TEST--
excimer_arclamp_send() against a fake Redis that misbehaves (common/tests/fakeredis.py): every fault is counted under its reason with its cause, bounded by the timeout, and the next send works
--EXTENSIONS--
excimer
--SKIPIF--
<?php if (!is_executable('/usr/bin/python3')) die('skip python3 not installed'); ?>
--INI--
excimer.arclamp_timeout_max=10
error_log=/dev/null
--FILE--
<?php
// Starts the fake as a script: it prints its port, then serves until killed.
function fake_redis(string $behaviour, array $args = []): array {
    $cmd = array_merge(['/usr/bin/python3', __DIR__ . '/../../common/tests/fakeredis.py', '--port', '0',
                        '--behaviour', $behaviour, '--print-port'], $args);
    $proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'w']],
                      $pipes);
    $port = (int)fgets($pipes[1]);
    if ($port <= 0) {
        throw new RuntimeException("fakeredis.py did not start ($behaviour)");
    }
    return [$proc, $port];
}
function stop_fake($proc): void {
    proc_terminate($proc, 15);
    proc_close($proc);
}

$valgrind = getenv('USE_ZEND_ALLOC') === '0';
$timeout = $valgrind ? 5.0 : 0.3;
ini_set('excimer.arclamp_timeout', (string)$timeout);
// behaviour => [extra fakeredis.py arguments, target suffix, expected error key, words of the cause]
$cases = [
    'normal' => [[], '', null, null],
    'split' => [[], '', null, null],
    'malformed' => [[], '', 'reply', 'Protocol error, got "!" as reply type byte'],
    'error' => [['--trigger', 'XADD'], '', 'reply', 'Redis: ERR injected'],
    'never_complete' => [[], '', 'timeout', 'timed out waiting for replies'],
    'close_mid_reply' => [[], '', 'send', 'the server closed the connection before answering'],
    'silent' => [[], '', 'timeout', 'timed out waiting for replies'],
    'auth_fails' => [['--password', 'right'], ':wrong@', 'connect', 'AUTH refused: WRONGPASS'],
    'select_fails' => [[], '', 'connect', 'SELECT 3 refused: ERR DB index is out of range'],
    'huge_array' => [[], '', 'reply', 'refused'],
];
foreach ($cases as $behaviour => [$args, $auth, $key, $words]) {
    [$proc, $port] = fake_redis($behaviour, $args);
    $db = $behaviour === 'select_fails' ? '&db=3' : '';
    $target = "redis://{$auth}127.0.0.1:$port/excimer?stream=1$db";
    $before = excimer_arclamp_stats();
    $t = hrtime(true);
    $sent = excimer_arclamp_send($target, "a 1\nb 1\n");
    $ms = (hrtime(true) - $t) / 1e6;
    // The send gives up at the deadline; the sender thread books the failure
    // right then, which a slow machine (valgrind) may make a little later.
    for ($i = 0; $i < 100 && excimer_arclamp_stats()['queued'] > 0; $i++) {
        usleep(50000);
    }
    $after = excimer_arclamp_stats();
    $grew = array_keys(array_filter($after['errors'], fn($v, $k) => $v > $before['errors'][$k],
                                    ARRAY_FILTER_USE_BOTH));
    $ok = $key === null
        ? $sent === 2 && $grew === []
        : $sent === 0 && $grew === [$key] && $after['failed'] - $before['failed'] === 2
          && str_contains($after['last_error'], $words);
    // Never longer than the timeout (and a little slack for the machine).
    $ok = $ok && $ms < $timeout * 1000 + ($valgrind ? 2000 : 60);
    printf("%-16s %s%s\n", $behaviour, $ok ? 'ok' : 'WRONG', $ok ? '' : sprintf(
        ' (sent %d in %.0f ms, errors %s, last_error "%s")', $sent, $ms, json_encode($grew),
        $after['last_error']));
    stop_fake($proc);
}
// The process goes on sending: a good fake after all of them.
[$proc, $port] = fake_redis('normal');
var_dump(excimer_arclamp_send("redis://127.0.0.1:$port/excimer?stream=1", "c 1\n"));
stop_fake($proc);
?>
--EXPECT--
normal           ok
split            ok
malformed        ok
error            ok
never_complete   ok
close_mid_reply  ok
silent           ok
auth_fails       ok
select_fails     ok
huge_array       ok
int(1)

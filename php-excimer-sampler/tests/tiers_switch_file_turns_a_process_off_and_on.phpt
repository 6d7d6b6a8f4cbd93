--TEST--
Request tiers: excimer.tiers_control switches tracing off and on within a second, without a restart
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed');
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the requests under test run outside valgrind');
?>
--FILE--
<?php
require __DIR__ . '/tiers_helpers.inc';
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-tiers');
// Each request reports, then the operator's next word goes to the file and
// the request outlasts the once-a-second check.
file_put_contents("$dir/app.php", '<?php
function work() { return 1; }
work();
$n = (int)@file_get_contents(__DIR__ . "/n");
file_put_contents(__DIR__ . "/n", $n + 1);
$s = excimer_tiers_status();
printf("request %d: enabled=%d tracing=%d work=%d\n", $n, $s["enabled"], $s["tracing"],
       excimer_tiers_stats()["app"]["w"]["calls"] ?? 0);
$next = ["off", "off", "on", "nonsense", "0", "1"][$n] ?? null;
if ($next === "gone") unlink(__DIR__ . "/control");
elseif ($next !== null) file_put_contents(__DIR__ . "/control", "$next\n");
usleep(1100000);
');
file_put_contents("$dir/control", "on\n");
echo cgi_requests("$dir/app.php", 7, ['excimer.tiers' => '"w=work"',
    'excimer.tiers_control' => "$dir/control", 'excimer.tiers_flush_interval' => 3600]);

echo "-- no file: on\n";
unlink("$dir/control");
file_put_contents("$dir/n", "10");
echo cgi_requests("$dir/app.php", 1, ['excimer.tiers' => '"w=work"',
    'excimer.tiers_control' => "$dir/control"]);
?>
--EXPECTF--
request 0: enabled=1 tracing=1 work=1
request 1: enabled=0 tracing=0 work=1
request 2: enabled=0 tracing=0 work=1
request 3: enabled=1 tracing=1 work=2
request 4: enabled=1 tracing=1 work=3
request 5: enabled=0 tracing=0 work=3
request 6: enabled=1 tracing=1 work=4
excimer: excimer.tiers_control: the file's first word is neither on nor off; left as it was
%A
-- no file: on
request 10: enabled=1 tracing=1 work=1
%A

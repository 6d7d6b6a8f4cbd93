--TEST--
Request tiers: the circuit breaker pauses tracing when its own cost or the transport's failures pass their bounds, and resumes after the cool-down
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
file_put_contents("$dir/app.php", '<?php
function tick() { return 1; }
$s = excimer_tiers_status();
for ($i = 0; $i < 2000; $i++) tick();
printf("tracing=%d paused=%d trips=%d resumes=%d last=%s\n", $s["tracing"], $s["paused"], $s["trips"],
       $s["resumes"], $s["last_trip"] ?? "-");
// the third request of a process outlasts the cool-down
$n = (int)@file_get_contents(__DIR__ . "/n") + 1;
file_put_contents(__DIR__ . "/n", $n);
usleep($n == 3 ? 1100000 : 0);
');
echo "-- cost: a request of 2,000 tiny tier calls costs far more than 0.0001% of its time\n";
echo cgi_requests("$dir/app.php", 5, ['excimer.tiers' => '"t=tick"',
    'excimer.tiers_breaker_cost' => '0.000001', 'excimer.tiers_breaker_window' => '0',
    'excimer.tiers_breaker_cooldown' => '1']);

echo "-- within the bound: never trips\n";
@unlink("$dir/n");
echo cgi_requests("$dir/app.php", 3, ['excimer.tiers' => '"t=tick"',
    'excimer.tiers_breaker_cost' => '1000', 'excimer.tiers_breaker_window' => '0']);

echo "-- transport: a Redis that refuses every connection\n";
$free = stream_socket_server('tcp://127.0.0.1:0');
$port = parse_url('tcp://' . stream_socket_get_name($free, false), PHP_URL_PORT);
fclose($free); // nothing listens there now
@unlink("$dir/n");
echo cgi_requests("$dir/app.php", 6, ['excimer.tiers' => '"t=tick"',
    'excimer.tiers_target' => "redis://127.0.0.1:$port/tiers", 'excimer.tiers_flush_interval' => '0',
    'excimer.tiers_breaker_failures' => '1', 'excimer.tiers_breaker_window' => '0.2',
    'excimer.tiers_breaker_cost' => '1000', 'excimer.tiers_breaker_cooldown' => '60',
    'excimer.arclamp_send_delay' => '0.01']);
?>
--EXPECTF--
-- cost: a request of 2,000 tiny tier calls costs far more than 0.0001% of its time
tracing=1 paused=0 trips=0 resumes=0 last=-
tracing=0 paused=1 trips=1 resumes=0 last=own cost over excimer.tiers_breaker_cost
tracing=0 paused=1 trips=1 resumes=0 last=own cost over excimer.tiers_breaker_cost
tracing=1 paused=0 trips=1 resumes=1 last=own cost over excimer.tiers_breaker_cost
tracing=0 paused=1 trips=2 resumes=1 last=own cost over excimer.tiers_breaker_cost
%A
-- within the bound: never trips
tracing=1 paused=0 trips=0 resumes=0 last=-
tracing=1 paused=0 trips=0 resumes=0 last=-
tracing=1 paused=0 trips=0 resumes=0 last=-
%A
-- transport: a Redis that refuses every connection
tracing=1 paused=0 trips=0 resumes=0 last=-
%Atracing=0 paused=1 trips=1 resumes=0 last=transport failures reached excimer.tiers_breaker_failures
%A

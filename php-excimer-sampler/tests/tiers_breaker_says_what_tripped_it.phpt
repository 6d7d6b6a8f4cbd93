--TEST--
Request tiers: a trip of the circuit breaker says what tripped it, with the window's measured figures, in excimer_tiers_status()['last_trip_figures'] and in PHP's error log; an ordinary load (a few tier calls in requests of a few ms) never trips it, also while other processes keep every CPU busy (the cost of a call is measured in the cheapest of several rounds: one the scheduler cut into once tripped the breaker on an ordinary benchmark)
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
$dir = private_temp_dir('excimer-breaker');
file_put_contents("$dir/app.php", '<?php
function tick() { return 1; }
function query() { $t = hrtime(true); while (hrtime(true) - $t < 200000) {} return 1; }
[$calls, $last] = json_decode(file_get_contents(__DIR__ . "/cfg.json"));
if ($calls > 100) { for ($i = 0; $i < $calls; $i++) tick(); }
else { for ($i = 0; $i < $calls; $i++) query(); }
$n = (int)@file_get_contents(__DIR__ . "/n") + 1;
file_put_contents(__DIR__ . "/n", $n);
if ($n == $last) echo json_encode(excimer_tiers_status()), "\n";
');

function status_after(string $dir, int $requests, int $calls, array $ini): array {
    @unlink("$dir/n");
    file_put_contents("$dir/cfg.json", json_encode([$calls, $requests]));
    $out = cgi_requests("$dir/app.php", $requests, $ini + ['error_log' => "$dir/php.log"]);
    return json_decode(strtok($out, "\n"), true) ?? ["output" => $out]; // (then php-cgi's "Elapsed time")
}

echo "-- a trip on cost says what it measured\n";
@unlink("$dir/php.log");
$s = status_after($dir, 3, 2000, ['excimer.tiers' => '"t=tick"',
    'excimer.tiers_breaker_cost' => '0.000001', 'excimer.tiers_breaker_window' => '0']);
$f = $s["last_trip_figures"];
var_dump($s['trips'] >= 1, $s['last_trip'], $f['timed_calls'] >= 2000, $f['cost_ratio'] > 0.000001,
         $f['cost_per_call_ns'] > 0, $f['requests_ms'] > 0, $f['failed_lines'], $f['backlog']);
$log = file_get_contents("$dir/php.log");
var_dump((bool)preg_match('/excimer: request tiers paused for 30 s: own cost over excimer\.tiers_breaker_cost '
    . '\(over [\d.]+ s: \d+ timed calls x \d+ ns = [\d.]+ ms of [\d.]+ ms of requests, cost [\d.]+ of '
    . 'excimer\.tiers_breaker_cost [\d.e+-]+; 0 lines queued, 0 failed\)/', $log));

echo "-- an ordinary load with every CPU kept busy: no trip\n";
$burners = [];
for ($i = 0; $i < 2; $i++) // bounded: 60 s at most, killed below
    $burners[] = proc_open([PHP_BINARY, '-n', '-r', '$t = time(); while (time() - $t < 60) {}'],
                           [], $pipes);
foreach ([1, 2, 3] as $process) {
    $s = status_after($dir, 60, 10, ['excimer.tiers' => '"db=query"',
        'excimer.tiers_breaker_window' => '0.05']);
    printf("process %d: trips=%d cost below the bound=%d\n", $process, $s['trips'],
           $s['cost_ratio'] < 0.005);
    if ($s['trips'])
        var_dump($s['last_trip'], $s['last_trip_figures']);
}
foreach ($burners as $b) { proc_terminate($b, 9); proc_close($b); }
?>
--EXPECT--
-- a trip on cost says what it measured
bool(true)
string(40) "own cost over excimer.tiers_breaker_cost"
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
int(0)
bool(true)
-- an ordinary load with every CPU kept busy: no trip
process 1: trips=0 cost below the bound=1
process 2: trips=0 cost below the bound=1
process 3: trips=0 cost below the bound=1

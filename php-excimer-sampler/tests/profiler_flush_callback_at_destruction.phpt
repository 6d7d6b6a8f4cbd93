--TEST--
ExcimerProfiler::setFlushCallback($cb, $max_samples): as in Excimer, destroying the profiler hands the remaining samples to the callback; 0 and negative counts never flush by count (only at destruction), a positive count flushes when reached
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function run(int $max_samples): array {
    $calls = [];
    $p = new ExcimerProfiler;
    $p->setPeriod(0.001);
    $p->setFlushCallback(function (ExcimerLog $log) use (&$calls) {
        $calls[] = count($log);
    }, $max_samples);
    $p->start();
    $deadline = hrtime(true) + 20e9;
    while (count($p->getLog()) + array_sum($calls) < 6 && hrtime(true) < $deadline) {
        for ($i = 0; $i < 1000; $i++) {
        }
    }
    $p->stop();
    $during = count($calls);
    unset($p);
    return [$during, $calls];
}

foreach ([0, -1] as $max) {
    [$during, $calls] = run($max);
    echo "$max: during=$during at_destruction=", count($calls), " samples>=6: ",
        var_export(array_sum($calls) >= 6, true), "\n";
}
[$during, $calls] = run(2);
echo "2: during>=2: ", var_export($during >= 2, true), " every flush has 2: ",
    var_export(count(array_filter(array_slice($calls, 0, $during), fn($c) => $c !== 2)) === 0, true), "\n";

/* Nothing left: no call at destruction. */
$called = false;
$p = new ExcimerProfiler;
$p->setFlushCallback(function () use (&$called) { $called = true; }, 5);
unset($p);
var_dump($called);
?>
--EXPECT--
0: during=0 at_destruction=1 samples>=6: true
-1: during=0 at_destruction=1 samples>=6: true
2: during>=2: true every flush has 2: true
bool(false)

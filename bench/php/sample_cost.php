<?php
// Per-sample cost at a fixed stack depth: recurse to DEPTH frames, then do a
// fixed amount of work there while (optionally) a profiler samples every
// PERIOD seconds. Run once with MODE=idle (profiler created, never started)
// and once with MODE=profile; under callgrind the instruction difference
// divided by the number of samples is the cost of one sample.
// Usage: php sample_cost.php DEPTH MODE [ITERATIONS] [PERIOD]
$depth = (int)($argv[1] ?? 10);
$mode = $argv[2] ?? 'profile';
$iterations = (int)($argv[3] ?? 3000000);
$period = (float)($argv[4] ?? 0.001);

function work(int $n): int {
    $x = 0;
    for ($i = 0; $i < $n; $i++) {
        $x = ($x + $i) & 0xffff;
    }
    return $x;
}

function descend(int $d, int $n): int {
    return $d <= 1 ? work($n) : descend($d - 1, $n);
}

$prof = new ExcimerProfiler();
$prof->setPeriod($period);
$prof->setEventType(EXCIMER_REAL);
$prof->setMaxDepth(0);
$t0 = hrtime(true);
if ($mode === 'profile') {
    $prof->start();
}
descend($depth - 1, $iterations); // the script's file scope is the first frame
$prof->stop();
$elapsed_ns = hrtime(true) - $t0;
$log = $prof->getLog();
fprintf(STDERR, "samples=%d events=%d elapsed_ns=%d\n", count($log), $log->getEventCount(), $elapsed_ns);

<?php
// Cost of a profiler's life: create, start, stop, destroy; N times, median of
// several rounds, in microseconds per cycle. Usage: php lifecycle.php [N]
$n = (int)($argv[1] ?? 2000);
$rounds = [];
for ($r = 0; $r < 7; $r++) {
    $t0 = hrtime(true);
    for ($i = 0; $i < $n; $i++) {
        $p = new ExcimerProfiler();
        $p->setPeriod(60);
        $p->start();
        $p->stop();
        unset($p);
    }
    $rounds[] = (hrtime(true) - $t0) / 1000 / $n;
}
sort($rounds);
printf("%.2f\n", $rounds[3]);

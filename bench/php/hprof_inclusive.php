<?php
// The framework-like workload (workload.php: closures of one printed name
// calling each other, recursion over a tree) profiled through API (xhprof |
// tideways); prints the functions whose inclusive wall time is above
// main()'s, as XHProf's tools compute inclusive times (the sum of wt over the
// arcs into a function; f@1 a function of its own): none in a sound run.
// Usage: php hprof_inclusive.php API
$api = $argv[1] ?? 'xhprof';
$api === 'xhprof' ? xhprof_enable() : tideways_xhprof_enable();
$argv = [__FILE__, '1'];
register_shutdown_function(function () use ($api) { // (workload.php ends with exit)
    while (ob_get_level())
        ob_end_clean();
    $r = $api === 'xhprof' ? xhprof_disable() : tideways_xhprof_disable();
    $inclusive = [];
    foreach ($r as $key => $v) {
        $at = strpos($key, '==>');
        $child = $at === false ? $key : substr($key, $at + 3);
        $inclusive[$child] = ($inclusive[$child] ?? 0) + $v['wt'];
    }
    $main = $r['main()']['wt'] ?? 0;
    $over = array_filter($inclusive, fn($wt) => $wt > $main);
    arsort($over);
    $worst = array_slice($over, 0, 3);
    printf("arcs=%d over_main=%d%s\n", count($r), count($over), $over ? ' (' . implode(', ',
           array_map(fn($k, $v) => sprintf('%s %.0f%%', $k, 100 * $v / max(1, $main)),
                     array_keys($worst), $worst)) . ')' : '');
});
ob_start(fn() => ''); // the workload's own output
require __DIR__ . '/workload.php';

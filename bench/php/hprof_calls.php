<?php
// The hierarchical profiler's cost per call: N calls of a one-line function
// with the profiler enabled through API (xhprof | tideways | none) and FLAGS
// (wt | cpu | mem); prints ns per call and the calls the profile counted.
// Usage: php hprof_calls.php API FLAGS N
function small($x) { return $x + 1; }
[, $api, $flags, $n] = $argv + [null, 'none', 'wt', 2000000];
$n = (int)$n;
$f = ['wt' => 0, 'cpu' => 1, 'mem' => 2];
$t = hrtime(true);
if ($api === 'xhprof') {
    xhprof_enable([0, XHPROF_FLAGS_CPU, XHPROF_FLAGS_MEMORY][$f[$flags]]);
} elseif ($api === 'tideways') {
    tideways_xhprof_enable([0, TIDEWAYS_XHPROF_FLAGS_CPU, TIDEWAYS_XHPROF_FLAGS_MEMORY][$f[$flags]]);
}
$s = 0;
for ($i = 0; $i < $n; $i++) {
    $s = small($s);
}
$r = $api === 'xhprof' ? xhprof_disable() : ($api === 'tideways' ? tideways_xhprof_disable() : []);
$ns = (hrtime(true) - $t) / $n;
$counted = 0;
foreach ($r as $k => $v) {
    if (str_ends_with($k, '==>small')) {
        $counted += $v['ct'];
    }
}
printf("ns_per_call=%.2f counted=%d\n", $ns, $counted);

<?php
// Memory per distinct arc: N distinct functions called once each from
// main() while profiling; the resident memory the profiler's tables take
// (they are malloc'd: memory_get_usage() does not see them) per arc.
// Usage: php hprof_arcs.php N
$n = (int)($argv[1] ?? 20000);
$code = '';
for ($i = 0; $i < $n; $i++) {
    $code .= "function f$i() { return $i; }\n";
}
eval($code);
function rss_kb(): int {
    preg_match('/VmRSS:\s+(\d+)/', file_get_contents('/proc/self/status'), $m);
    return (int)$m[1];
}
for ($i = 0; $i < $n; $i++) { ("f$i")(); } // warm: run-time caches exist before
gc_collect_cycles();
$before = rss_kb();
tideways_xhprof_enable();
for ($i = 0; $i < $n; $i++) { ("f$i")(); }
$during = rss_kb();
$r = tideways_xhprof_disable();
printf("arcs=%d bytes_per_arc=%.0f\n", count($r), ($during - $before) * 1024 / max(1, count($r)));

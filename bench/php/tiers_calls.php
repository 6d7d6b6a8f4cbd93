<?php
// Request tiers' cost: N iterations of a loop calling a one-line user
// function (`small`, or the tier function `timed` when MODE is "tier"),
// then prints ns per iteration and the calls the tiers counted.
// Usage: php tiers_calls.php MODE N      (MODE: plain | tier | internal)
function small($x) { return $x + 1; }
function timed($x) { return $x + 1; }
[, $mode, $n] = $argv + [null, 'plain', 2000000];
$n = (int)$n;
$s = 0;
$t = hrtime(true);
if ($mode === 'tier') {
    for ($i = 0; $i < $n; $i++) {
        $s = timed($s);
    }
} elseif ($mode === 'internal') {
    for ($i = 0; $i < $n; $i++) {
        $s = abs($s);
    }
} else {
    for ($i = 0; $i < $n; $i++) {
        $s = small($s);
    }
}
$ns = (hrtime(true) - $t) / $n;
$counted = 0;
if (function_exists('excimer_tiers_stats')) {
    foreach (excimer_tiers_stats() as $tiers) {
        $counted += $tiers['t']['calls'] ?? 0;
    }
}
printf("ns_per_call=%.2f counted=%d\n", $ns, $counted);

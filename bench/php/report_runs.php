<?php
// RUNS serialize()d XHProf runs of ARCS arcs each (a tree: f_i called by
// f_(i-1)/4), with values that differ from run to run, for the
// aggregation benchmark. Usage: php report_runs.php DIR RUNS ARCS
[, $dir, $runs, $arcs] = $argv;
$names = [];
for ($i = 0; $i < $arcs; $i++) { $names[] = ($i ? "f" . intdiv($i - 1, 4) : "main()") . "==>f$i"; }
$names[0] = "main()";
for ($r = 0; $r < $runs; $r++) {
    $run = [];
    foreach ($names as $i => $k) { $run[$k] = ["ct" => 1 + ($i + $r) % 7, "wt" => 100 + $i + $r, "cpu" => 90 + $i, "mu" => 1000 + $r, "pmu" => 2000]; }
    file_put_contents(sprintf("%s/run%05d.xhprof", $dir, $r), serialize($run));
}

--TEST--
tideways_xhprof and uprofiler APIs: found as collectors look for them, their flags select the metrics (cpu, mu, pmu, mem.na/nf/aa, MEMORY_ALLOC_AS_MU), tideways_xhprof_disable() without enable gives an empty array, uprofiler_enable() returns true, uprofiler's sampling mode, the INI settings exist
--EXTENSIONS--
excimer
tideways_xhprof
uprofiler
--FILE--
<?php
require __DIR__ . '/hprof_helpers.inc';
var_dump(extension_loaded('tideways_xhprof'), extension_loaded('uprofiler'),
         function_exists('tideways_xhprof_enable'), function_exists('uprofiler_sample_enable'));
var_dump(TIDEWAYS_XHPROF_FLAGS_MEMORY === (TIDEWAYS_XHPROF_FLAGS_MEMORY_MU | TIDEWAYS_XHPROF_FLAGS_MEMORY_PMU),
         TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC_AS_MU, UPROFILER_FLAGS_FUNCTION_INFO);
function mk() { $a = []; for ($i = 0; $i < 100; $i++) { $a[] = str_repeat("x", 100); } return count($a); }
var_dump(tideways_xhprof_disable());
foreach ([0, TIDEWAYS_XHPROF_FLAGS_CPU, TIDEWAYS_XHPROF_FLAGS_MEMORY,
          TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC, TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC_AS_MU] as $flags) {
    tideways_xhprof_enable($flags);
    mk();
    $r = tideways_xhprof_disable();
    hprof_check($r);
    echo $flags, ": ", implode(",", array_keys($r['main()==>mk'])), "\n";
    if ($flags === TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC) {
        $m = $r['main()==>mk'];
        var_dump($m['mem.na'] >= 100, $m['mem.aa'] >= 100 * 100, $m['mem.nf'] <= $m['mem.na']);
    }
    if ($flags === TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC_AS_MU) {
        var_dump($r['main()==>mk']['mu'] === $r['main()==>mk']['mem.aa']);
    }
}
var_dump(uprofiler_enable(UPROFILER_FLAGS_CPU | UPROFILER_FLAGS_MEMORY));
mk();
$r = uprofiler_disable();
hprof_check($r);
echo implode(",", array_keys($r['main()==>mk'])), "\n";
var_dump(uprofiler_disable());
ini_set('uprofiler.sampling_interval', 5000);
var_dump(uprofiler_sample_enable());
$t = hrtime(true); while (hrtime(true) - $t < 30e6) { mk(); }
$s = uprofiler_sample_disable();
var_dump(count($s) >= 3, str_starts_with(end($s), 'main()'), uprofiler_sample_disable());
var_dump(ini_get('tideways_xhprof.clock_use_rdtsc'), ini_get('uprofiler.output_dir'));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(48)
int(8)
array(0) {
}
0: ct,wt
1: ct,wt,cpu
6: ct,wt,mu,pmu
16: ct,wt,mem.na,mem.nf,mem.aa
bool(true)
bool(true)
bool(true)
48: ct,wt,mu,mem.na,mem.nf,mem.aa
bool(true)
bool(true)
ct,wt,cpu,mu,pmu
NULL
bool(true)
bool(true)
bool(true)
NULL
string(1) "0"
string(0) ""

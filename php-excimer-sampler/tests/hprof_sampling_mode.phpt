--TEST--
xhprof_sample_enable()/xhprof_sample_disable(): the stack every xhprof.sampling_interval µs, keyed by "sec.usec" on the interval grid, as "main()==>a==>b"; xhprof.sampling_depth keeps the innermost frames
--EXTENSIONS--
excimer
xhprof
--INI--
xhprof.sampling_interval=10000
--FILE--
<?php
function outer() { middle(); }
function middle() { $t = hrtime(true); while (hrtime(true) - $t < 60e6) { leaf(); } }
function leaf() { return 1; }
$before = microtime(true);
xhprof_sample_enable();
outer();
$s = xhprof_sample_disable();
$elapsed_ms = (microtime(true) - $before) * 1000;
var_dump(count($s) >= 4, count($s) <= $elapsed_ms / 10 + 1);
$keys = array_map('floatval', array_keys($s));
$steps = [];
for ($i = 1; $i < count($keys); $i++) {
    $steps[] = round(($keys[$i] - $keys[$i - 1]) * 1000);
}
var_dump(array_unique($steps) === [10.0], $keys[0] >= $before, $keys[0] < $before + 1);
/* the stack when a grid point had passed (the loop's, once in it) */
var_dump(count(array_filter($s, fn($v) => str_starts_with($v, 'main()'))) === count($s),
         str_starts_with(end($s), 'main()==>outer==>middle'));
ini_set('xhprof.sampling_depth', 2);
xhprof_sample_enable();
outer();
$s = xhprof_sample_disable();
var_dump(count(array_filter($s, fn($v) => substr_count($v, '==>') <= 1)) === count($s));
var_dump(xhprof_sample_disable());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
NULL

--TEST--
Internal functions are observed once: each call counted once, no bogus f==>f@1 arc (tideways 5.0.4 hooks them twice on PHP 8.2), callbacks from internal functions hang below them; XHPROF_FLAGS_NO_BUILTINS makes them transparent
--EXTENSIONS--
excimer
xhprof
--FILE--
<?php
require __DIR__ . '/hprof_helpers.inc';
function cb($x) { return $x * 2; }
function run() {
    for ($i = 0; $i < 10; $i++) {
        str_repeat("a", 3);
    }
    array_map('cb', [1, 2, 3]);
    $a = [3, 1, 2];
    usort($a, fn($x, $y) => $x <=> $y);
}
xhprof_enable();
run();
$r = xhprof_disable();
hprof_check($r);
var_dump($r['run==>str_repeat']['ct'], $r['array_map==>cb']['ct'], $r['run==>array_map']['ct']);
/* no "f==>f@1" arc: a function as its own caller one level up */
var_dump(count(array_filter(array_keys($r), function ($k) {
    $p = explode('==>', $k);
    return count($p) === 2 && $p[1] === $p[0] . '@1';
})));
var_dump(isset($r['run==>usort']), isset($r['usort==>{closure}']));

xhprof_enable(XHPROF_FLAGS_NO_BUILTINS);
run();
$r = xhprof_disable();
hprof_check($r);
ksort($r);
var_dump(array_keys($r));
?>
--EXPECT--
int(10)
int(3)
int(1)
int(0)
bool(true)
bool(true)
array(4) {
  [0]=>
  string(6) "main()"
  [1]=>
  string(12) "main()==>run"
  [2]=>
  string(8) "run==>cb"
  [3]=>
  string(15) "run==>{closure}"
}

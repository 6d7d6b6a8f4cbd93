--TEST--
Bounded memory: at excimer.hprof_max_arcs distinct arcs, further arcs add to one overflow arc under main() (ct still counts every call); call counts grow no table
--EXTENSIONS--
excimer
xhprof
--INI--
excimer.hprof_max_arcs=20
--FILE--
<?php
require __DIR__ . '/hprof_helpers.inc';
for ($i = 0; $i < 50; $i++) {
    eval("function f$i() { return $i; }");
}
xhprof_enable();
for ($i = 0; $i < 50; $i++) {
    ("f$i")();
    ("f$i")();
}
$r = xhprof_disable();
hprof_check($r);
var_dump(count($r) <= 21);
$over = $r['main()==>(arcs over excimer.hprof_max_arcs)'];
$seen = 0;
foreach ($r as $k => $v) {
    if (str_starts_with($k, 'main()==>f')) {
        $seen += $v['ct'];
    }
}
var_dump($seen + $over['ct'] >= 100, $over['ct'] > 0);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)

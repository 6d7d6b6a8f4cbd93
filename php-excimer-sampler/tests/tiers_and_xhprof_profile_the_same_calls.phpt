--TEST--
Request tiers and the hierarchical profiler together: each sees every call of a patched function (entries, returns, exceptions)
--EXTENSIONS--
excimer
xhprof
--INI--
excimer.tiers="t=t, u=u"
--FILE--
<?php
require __DIR__ . '/hprof_helpers.inc';
require __DIR__ . '/tiers_helpers.inc';
function t($n) { return $n ? t($n - 1) : 0; }
function u() { try { throw new Exception('x'); } finally { } }
xhprof_enable();
for ($i = 0; $i < 3; $i++) {
    t(2);
    try { u(); } catch (Exception $e) {}
}
$r = xhprof_disable();
hprof_check($r);
foreach (['main()==>t', 't==>t@1', 't@1==>t@2', 'main()==>u', 'u==>Exception::__construct'] as $arc) {
    echo $arc, ' ', $r[$arc]['ct'] ?? 0, "\n";
}
print_r(tier_calls());
?>
--EXPECT--
main()==>t 3
t==>t@1 3
t@1==>t@2 3
main()==>u 3
u==>Exception::__construct 3
Array
(
    [tiers_and_xhprof_profile_the_same_calls/t] => 3
    [tiers_and_xhprof_profile_the_same_calls/u] => 3
)

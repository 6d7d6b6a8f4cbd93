--TEST--
xhprof_enable(..., ['ignored_functions' => ...]): an ignored function, user or internal, is transparent (its callees attach to its caller); a single name works as a list of one; main() is never ignored
--EXTENSIONS--
excimer
xhprof
--FILE--
<?php
require __DIR__ . '/hprof_helpers.inc';
function wrapper() { return leaf() + array_sum(array_map('leaf', [1])); }
function leaf($x = 0) { return 1; }
xhprof_enable(0, ['ignored_functions' => ['wrapper', 'array_map', 'main()']]);
wrapper();
$r = xhprof_disable();
hprof_check($r);
ksort($r);
echo implode("\n", array_keys($r)), "\n--\n";
xhprof_enable(0, ['ignored_functions' => 'leaf']);
wrapper();
$r = xhprof_disable();
hprof_check($r);
ksort($r);
echo implode("\n", array_keys($r)), "\n";
?>
--EXPECT--
main()
main()==>array_sum
main()==>leaf
main()==>xhprof_disable
--
main()
main()==>wrapper
main()==>xhprof_disable
wrapper==>array_map
wrapper==>array_sum

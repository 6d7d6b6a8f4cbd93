--TEST--
exit() inside a profiled call: the shutdown function's xhprof_disable() still returns a consistent run (the calls exit() left are closed)
--EXTENSIONS--
excimer
xhprof
--FILE--
<?php
require __DIR__ . '/hprof_helpers.inc';
function a() { b(); }
function b() { exit(); }
register_shutdown_function(function () {
    $r = xhprof_disable();
    hprof_check($r);
    ksort($r);
    foreach ($r as $k => $v) {
        echo $k, " ", $v['ct'], "\n";
    }
    var_dump($r['main()']['wt'] >= $r['main()==>a']['wt'], $r['main()==>a']['wt'] >= $r['a==>b']['wt']);
});
xhprof_enable();
a();
?>
--EXPECT--
a==>b 1
main() 1
main()==>a 1
main()==>{closure} 1
{closure}==>xhprof_disable 1
bool(true)
bool(true)

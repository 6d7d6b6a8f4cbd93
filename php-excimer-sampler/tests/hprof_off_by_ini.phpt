--TEST--
excimer.hprof=0 turns the hierarchical mode off: no observer is registered, enabling warns and returns nothing
--EXTENSIONS--
excimer
xhprof
uprofiler
--INI--
excimer.hprof=0
--FILE--
<?php
xhprof_enable();
var_dump(xhprof_disable());
var_dump(uprofiler_enable());
?>
--EXPECTF--
Warning: xhprof_enable(): the hierarchical profiler is off (excimer.hprof = 0) in %s on line 2
NULL

Warning: uprofiler_enable(): the hierarchical profiler is off (excimer.hprof = 0) in %s on line 4
bool(false)

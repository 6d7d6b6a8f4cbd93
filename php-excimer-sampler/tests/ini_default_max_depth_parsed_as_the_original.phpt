--TEST--
excimer.default_max_depth: the leading integer of the value ("2.7" is 2, "abc" is 0: unlimited, -1 the leaf only), without PHP's "Invalid quantity" warning, as the original reads it
--EXTENSIONS--
excimer
--INI--
error_reporting=-1
--FILE--
<?php
function trace_length(int $depth): int {
    if ($depth > 0) {
        return trace_length($depth - 1);
    }
    $p = new ExcimerProfiler;
    $p->setPeriod(0.001);
    $p->start();
    $log = $p->getLog();
    // until a sample, however slow the machine (valgrind on a busy one took
    // none in a fixed 20 ms); the loop is here, not in a helper, whose frame
    // would be counted
    $deadline = hrtime(true) + 60e9;
    while (count($log) === 0 && hrtime(true) < $deadline) {
        for ($i = 0; $i < 1000; $i++) {
        }
    }
    $p->stop();
    return count($log[0]->getTrace());
}
foreach (['2.7', 'abc', ' 5', '7x', '-1'] as $value) {
    var_dump(ini_set('excimer.default_max_depth', $value) !== false);
    echo "$value: ", trace_length(20), " frames\n";
}
?>
--EXPECT--
bool(true)
2.7: 4 frames
bool(true)
abc: 22 frames
bool(true)
 5: 7 frames
bool(true)
7x: 9 frames
bool(true)
-1: 2 frames

--TEST--
ExcimerProfiler::setMaxDepth(0): a 100000-frame stack is sampled whole (iterative walk, no C recursion)
--EXTENSIONS--
excimer
--INI--
memory_limit=-1
--SKIPIF--
<?php
// The normal run covers the crash this guards against (C recursion in the walk).
if (getenv('USE_ZEND_ALLOC') === '0') die('skip 100,000 frames take over 10 minutes under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function recurse(ExcimerLog $log, int $n) {
    if ($n > 0) {
        return recurse($log, $n - 1);
    }
    /* Samples taken on the way down are shallower: wait for one at the bottom. */
    burn_until_samples($log, count($log) + 1, 120.0);
}

$p = new ExcimerProfiler;
$p->setMaxDepth(0);
$p->setPeriod(0.01);
$p->start();
recurse($p->getLog(), 100000);
$p->stop();
$log = $p->getLog();
$last = $log[count($log) - 1];
$trace = $last->getTrace();
var_dump(count($trace));
var_dump($trace[0]['function'], $trace[100001]['function'], $trace[100002]['file'] === __FILE__);
unset($trace);
$collapsed = $log->formatCollapsed();
var_dump(substr_count($collapsed, ';recurse;') >= 50000);
unset($collapsed);
$aggr = $log->aggregateByFunction();
$recurse = $aggr['recurse']['inclusive'];
var_dump($recurse >= $last->getEventCount() && $recurse <= $log->getEventCount());
?>
--EXPECT--
int(100003)
string(18) "burn_until_samples"
string(7) "recurse"
bool(true)
bool(true)
bool(true)

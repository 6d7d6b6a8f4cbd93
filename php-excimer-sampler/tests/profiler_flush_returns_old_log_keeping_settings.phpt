--TEST--
ExcimerProfiler::flush(): returns the old log, continues in an empty one with the same max depth and period
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function deep(ExcimerLog $log, int $n) {
    if ($n > 0) {
        return deep($log, $n - 1);
    }
    burn_until_samples($log, count($log) + 2);
}

$p = new ExcimerProfiler;
$p->setPeriod(0.004);
$p->setMaxDepth(3);
$p->start();
deep($p->getLog(), 10);
$first = $p->flush();
var_dump(count($first) >= 2, count($p->getLog()));
deep($p->getLog(), 10);
$p->stop();
$second = $p->getLog();
$depths = [];
foreach ($second as $entry) {
    $depths[] = count($entry->getTrace());
}
var_dump(max($depths));
$weights = $second->getSpeedscopeData()['profiles'][0]['weights'];
var_dump($weights[0] === $second[0]->getEventCount() * 4000000);
/* Timestamps keep counting from the profiler's creation. */
var_dump($second[0]->getTimestamp() >= $first[count($first) - 1]->getTimestamp());
?>
--EXPECT--
bool(true)
int(0)
int(5)
bool(true)
bool(true)

--TEST--
ExcimerLog::formatCollapsed(): "root;...;leaf COUNT" lines, no leading empty frame, closures, internal functions, counts summing to getEventCount()
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

class Worker {
    public function run(ExcimerLog $log) {
        $f = function ($x) use ($log) {
            burn_until_samples($log, count($log) + 20);
            return $x;
        };
        return array_map($f, [1]);
    }
}

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
(new Worker)->run($p->getLog());
$p->stop();
$log = $p->getLog();
$collapsed = $log->formatCollapsed();

$sum = 0;
$shape = true;
foreach (explode("\n", rtrim($collapsed, "\n")) as $line) {
    if (!preg_match('/^([^; ][^ ]*) ([1-9][0-9]*)$/', $line, $m) || strpos($line, ';;') !== false) {
        $shape = false;
        echo "bad line: $line\n";
    }
    $sum += (int)$m[2];
}
var_dump($shape, str_ends_with($collapsed, "\n"));
var_dump($sum === $log->getEventCount());
$closure = '{closure:' . __FILE__ . '(6)}';
$stack = __FILE__ . ";Worker::run;array_map;$closure;burn_until_samples";
var_dump(str_contains($collapsed, "$stack "));
/* Exactly what the traces say, in first-seen order. */
var_dump($collapsed === collapsed_from_traces($log));
/* An empty log formats as "". */
var_dump($p->flush()->formatCollapsed() !== '', $p->getLog()->formatCollapsed());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
string(0) ""

--TEST--
ExcimerLog::aggregateByFunction(): self and inclusive event counts, sorted by inclusive; recursion counts once per sample
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function recurse(ExcimerLog $log, int $depth) {
    if ($depth > 0) {
        return recurse($log, $depth - 1);
    }
    burn_until_samples($log, count($log) + 10);
}
class Runner {
    public static function go(ExcimerLog $log) {
        $f = function () use ($log) { recurse($log, 5); };
        $f();
    }
}

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
Runner::go($p->getLog());
$p->stop();
$log = $p->getLog();
$aggr = $log->aggregateByFunction();
$total = $log->getEventCount();

/* Sorted by inclusive, descending. */
$inclusive = array_column($aggr, 'inclusive');
$sorted = $inclusive;
rsort($sorted);
var_dump($inclusive === $sorted);
/* Recursion: 'recurse' is in every sample 6 times, but counts once. */
var_dump($aggr['recurse']['inclusive'] <= $total, $aggr[__FILE__]['inclusive'] === $total);
/* Every number is what the traces say. */
$ok = true;
foreach (aggregate_from_traces($log) as $name => $counts) {
    $ok = $ok && $aggr[$name]['self'] === $counts['self']
        && $aggr[$name]['inclusive'] === $counts['inclusive'];
}
var_dump($ok, array_sum(array_column($aggr, 'self')) === $total);
/* Frame details. */
var_dump($aggr['recurse']['file'] === __FILE__, $aggr['recurse']['function']);
var_dump(array_keys($aggr['Runner::go']), $aggr['Runner::go']['class']);
$closure = $aggr['{closure:' . __FILE__ . '(12)}'];
var_dump($closure['function'], $closure['closure_line'], $closure['class']);
var_dump(array_keys($aggr[__FILE__]));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
string(7) "recurse"
array(6) {
  [0]=>
  string(4) "file"
  [1]=>
  string(4) "line"
  [2]=>
  string(5) "class"
  [3]=>
  string(8) "function"
  [4]=>
  string(4) "self"
  [5]=>
  string(9) "inclusive"
}
string(6) "Runner"
string(9) "{closure}"
int(12)
string(6) "Runner"
array(4) {
  [0]=>
  string(4) "file"
  [1]=>
  string(4) "line"
  [2]=>
  string(4) "self"
  [3]=>
  string(9) "inclusive"
}

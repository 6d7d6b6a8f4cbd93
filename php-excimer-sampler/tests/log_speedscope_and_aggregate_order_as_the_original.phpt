--TEST--
ExcimerLog output order and key text as Excimer 1.2.5's: speedscope shared.frames in the order stacks first reached them from the root, one per (name, file); aggregateByFunction() keyed by the name as it is (a file path keeps its spaces), ties in inclusive count in order of first appearance leaf-first, each function's file and line from that first appearance
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

$dir = sys_get_temp_dir() . '/excimer dir ' . getmypid();
@mkdir($dir);
$script = "$dir/file scope.php";
file_put_contents($script, '<?php burn_until_samples($log, count($log) + 2); leaf($log);');

function leaf(ExcimerLog $log) { burn_until_samples($log, count($log) + 2); }
function left(ExcimerLog $log) { leaf($log); }
function right(ExcimerLog $log) { leaf($log); }
function top(ExcimerLog $log) { right($log); left($log); }

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
$log = $p->getLog();
top($log);
include $script;
$p->stop();
unlink($script);
rmdir($dir);

/* Expected frames: entries in order, each root first, first (name, file) wins. */
$expect = [];
$seen = [];
foreach ($log as $entry) {
    foreach (array_reverse($entry->getTrace()) as $f) {
        $key = frame_name($f) . "\0" . ($f['file'] ?? '');
        if (!isset($seen[$key])) {
            $seen[$key] = true;
            $expect[] = frame_name($f);
        }
    }
}
$frames = $log->getSpeedscopeData()['shared']['frames'];
var_dump(array_column($frames, 'name') === $expect);
var_dump(in_array(strtr($script, ' ', '_'), $expect, true));

/* Expected aggregate: first appearance walking each entry leaf first, then a
 * stable sort by inclusive, descending. */
$expect = aggregate_from_traces($log);
$first = [];
foreach ($log as $entry) {
    foreach ($entry->getTrace() as $f) {
        $first[frame_name($f, false)] ??= $f;
    }
}
$order = array_keys($first);
usort($order, fn ($a, $b) => $expect[$b]['inclusive'] <=> $expect[$a]['inclusive']);
$aggr = $log->aggregateByFunction();
var_dump(array_keys($aggr) === $order);
var_dump(isset($aggr[$script]), $aggr[$script]['line'] ?? null);
$lines_ok = true;
foreach ($aggr as $name => $info) {
    $lines_ok = $lines_ok && $info['line'] === $first[$name]['line'];
}
var_dump($lines_ok);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
int(1)
bool(true)

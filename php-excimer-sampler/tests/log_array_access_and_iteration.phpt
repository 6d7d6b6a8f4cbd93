--TEST--
ExcimerLog: count(), foreach, $log[$i] (null out of range), isset, and read-only writes
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
burn_until_samples($p->getLog(), 5);
$p->stop();
$log = $p->getLog();
$n = count($log);
var_dump($n >= 5, $n === $log->count());

$keys = [];
foreach ($log as $k => $entry) {
    $keys[] = $k;
    if (!$entry instanceof ExcimerLogEntry) {
        echo "not an entry\n";
    }
}
var_dump($keys === range(0, $n - 1));
var_dump(count(iterator_to_array($log)) === $n);
/* Iterator methods by hand. */
$log->rewind();
var_dump($log->valid(), $log->key(), $log->current() instanceof ExcimerLogEntry);
for ($i = 0; $i < $n; $i++) {
    $log->next();
}
var_dump($log->valid(), $log->key(), $log->current());

var_dump($log[0] instanceof ExcimerLogEntry, $log["1"] instanceof ExcimerLogEntry);
var_dump($log[$n], $log[-1]);
var_dump(isset($log[0]), isset($log[$n - 1]), isset($log[$n]), isset($log[-1]));
var_dump($log[0]->getTimestamp() === $log[0]->getTimestamp());

$log[0] = 'x';
$log[] = 'y';
unset($log[0]);
var_dump(count($log) === $n);
?>
--EXPECTF--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(true)
bool(false)
NULL
NULL
bool(true)
bool(true)
NULL
NULL
bool(true)
bool(true)
bool(false)
bool(false)
bool(true)

Warning: ExcimerLog::offsetSet(): ExcimerLog cannot be modified in %s on line %d

Warning: ExcimerLog::offsetSet(): ExcimerLog cannot be modified in %s on line %d

Warning: ExcimerLog::offsetUnset(): ExcimerLog cannot be modified in %s on line %d
bool(true)

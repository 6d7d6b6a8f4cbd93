--TEST--
ExcimerLog: each foreach has a position of its own, as in Excimer: nested loops over one log visit n² pairs, iterator_count() inside a loop does not end it, the log's own key()/current() do not move; foreach by reference is refused
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
burn_until_samples($p->getLog(), 4);
$p->stop();
$log = $p->getLog();
$n = count($log);
var_dump($n >= 4);

$pairs = 0;
foreach ($log as $i => $a) {
    foreach ($log as $j => $b) {
        $pairs++;
    }
}
var_dump($pairs === $n * $n);

$outer = 0;
foreach ($log as $entry) {
    $outer++;
    if (iterator_count($log) !== $n) {
        echo "iterator_count wrong\n";
    }
}
var_dump($outer === $n);

/* The Iterator methods keep their own position. */
$log->rewind();
$log->next();
foreach ($log as $k => $e) {
}
var_dump($log->key(), $log->current()->getTimestamp() === $log[1]->getTimestamp());

/* Keys and entries as the loop sees them. */
$keys = [];
foreach ($log as $k => $e) {
    $keys[] = $k;
    if (!$e instanceof ExcimerLogEntry || $e->getTimestamp() !== $log[$k]->getTimestamp()) {
        echo "entry $k wrong\n";
    }
}
var_dump($keys === range(0, $n - 1));

try {
    foreach ($log as &$ref) {
    }
} catch (RuntimeException $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
int(1)
bool(true)
bool(true)
An iterator cannot be used with foreach by reference

--TEST--
excimer.max_log_entries: a full log folds samples into the newest entry of the same stack; events are still counted
--EXTENSIONS--
excimer
--INI--
excimer.max_log_entries=5
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

/* Spins (all samples on one line, so one stack) until the log is full and
 * has folded at least 25 more events into its entries. */
function spin_a(ExcimerLog $log) {
    $deadline = hrtime(true) + 20e9;
    while ((count($log) < 5 || $log->getEventCount() < 30) && hrtime(true) < $deadline) {
    }
}
function spin_b() { burn(0.05); }

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
$log = $p->getLog();
spin_a($log);
var_dump(count($log));
$sum = 0;
foreach ($log as $entry) {
    $sum += $entry->getEventCount();
}
/* The entries' event counts include the samples folded into them. */
var_dump($sum >= 25, $log->getEventCount() >= $sum);

/* spin_b()'s stack is new: its samples are dropped, but still counted. */
$before = $log->getEventCount();
spin_b();
$p->stop();
var_dump(count($log), $log->getEventCount() > $before);
$total = 0;
foreach (explode("\n", rtrim($log->formatCollapsed(), "\n")) as $line) {
    $total += (int)substr($line, strrpos($line, ' ') + 1);
}
$sum = 0;
foreach ($log as $entry) {
    $sum += $entry->getEventCount();
}
var_dump($total === $sum, str_contains($log->formatCollapsed(), 'spin_b'));

/* A flushed log starts empty and has the same bound. */
$p->flush();
$p->start();
spin_a($p->getLog());
$p->stop();
var_dump(count($p->getLog()));
?>
--EXPECT--
int(5)
bool(true)
bool(true)
int(5)
bool(true)
bool(true)
bool(false)
int(5)

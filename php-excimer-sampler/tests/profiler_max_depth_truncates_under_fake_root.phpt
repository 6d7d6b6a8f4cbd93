--TEST--
ExcimerProfiler::setMaxDepth(N): as in Excimer 1.2.5, deeper stacks keep their N+1 leaf-most frames under "excimer_truncated" (file "excimer fake file", line 1); takes effect at once; -1 keeps the leaf only
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function down(ExcimerLog $log, int $n) {
    if ($n > 0) {
        return down($log, $n - 1);
    }
    burn_until_samples($log, count($log) + 3);
}

/* The depths of the log's samples, and whether each deep one is truncated right. */
function depths(ExcimerLog $log, ?int $max): array {
    $depths = [];
    foreach ($log as $entry) {
        $trace = $entry->getTrace();
        $root = end($trace);
        if ($max === null) {
            /* depths only */
        } elseif (($root['function'] ?? '') === 'excimer_truncated') {
            if (count($trace) !== $max + 2 || $root['file'] !== 'excimer fake file'
                || $root['line'] !== 1) {
                echo "bad truncation\n";
            }
        } elseif (count($trace) > $max + 1) {
            echo "not truncated\n";
        }
        $depths[] = count($trace);
    }
    return $depths;
}

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setMaxDepth(5);
$p->start();
down($p->getLog(), 30);
$p->stop();
var_dump(max(depths($p->getLog(), 5)));
var_dump((bool)preg_match('/^excimer_truncated;down;down;down;down;down;burn_until_samples \d+$/m',
                          $p->getLog()->formatCollapsed()));

/* A stack that fits is not truncated; the flushed log keeps the depth. */
$p->flush();
var_dump($p->getLog()->getEventCount());
$p->start();
down($p->getLog(), 2);
$p->stop();
var_dump(max(depths($p->getLog(), 5)));
$p->flush();
$p->start();
down($p->getLog(), 10);
$p->stop();
var_dump(max(depths($p->getLog(), 5)));

/* Changed while running: applies to the next sample. */
function down_then_limit(ExcimerProfiler $p, int $n) {
    if ($n > 0) {
        return down_then_limit($p, $n - 1);
    }
    burn_until_samples($p->getLog(), count($p->getLog()) + 3);
    $p->setMaxDepth(3);
    burn_until_samples($p->getLog(), count($p->getLog()) + 3);
}
$p->flush();
$p->setMaxDepth(0);
$p->start();
down_then_limit($p, 20);
$p->stop();
$depths = depths($p->getLog(), null);
var_dump(in_array(23, $depths, true), in_array(5, $depths, true));

/* Negative: the leaf and the marker, as the original's `max_depth && depth >= max_depth`. */
$p->flush();
$p->setMaxDepth(-1);
$p->start();
down($p->getLog(), 4);
$p->stop();
var_dump(max(depths($p->getLog(), null)), $p->getLog()[0]->getTrace()[1]['function']);
?>
--EXPECT--
int(7)
bool(true)
int(0)
int(5)
int(7)
bool(true)
bool(true)
int(2)
string(17) "excimer_truncated"

--TEST--
ExcimerProfiler (EXCIMER_REAL): samples the running code; getLog() is the live log; stop() ends sampling
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function hot_function(ExcimerLog $log) {
    burn_until_samples($log, 5);
}

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setEventType(EXCIMER_REAL);
$log = $p->getLog();
$p->start();
hot_function($log);
$p->stop();
$n = count($log);
var_dump($n >= 5);
var_dump($p->getLog() === $log);

/* Every sample was taken inside hot_function (or the helper it calls). */
$inside = 0;
$last = 0.0;
$ordered = true;
foreach ($log as $i => $entry) {
    $names = array_map('frame_name', $entry->getTrace());
    if (in_array('hot_function', $names, true)) {
        $inside++;
    }
    $t = $entry->getTimestamp();
    if ($t < $last || $t <= 0 || $t > 60) {
        $ordered = false;
    }
    $last = $t;
    if ($entry->getEventCount() < 1) {
        echo "bad event count\n";
    }
}
/* (One sample may fall just before the call, one just after it.) */
var_dump($inside >= $n - 2, $ordered);

/* Stopped: nothing more is recorded. */
burn(0.05);
var_dump(count($log) === $n);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)

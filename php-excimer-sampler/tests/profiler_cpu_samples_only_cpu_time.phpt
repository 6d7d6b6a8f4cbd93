--TEST--
ExcimerProfiler (EXCIMER_CPU): samples while burning CPU, hardly any while sleeping
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function burn_cpu(ExcimerLog $log) {
    burn_until_samples($log, 5);
}

$p = new ExcimerProfiler;
$p->setPeriod(0.002);
$p->setEventType(EXCIMER_CPU);
$p->start();
burn_cpu($p->getLog());
$p->stop();                 /* discards ticks not yet recorded */
$busy = $p->flush();
var_dump(count($busy) >= 5);
$names = [];
foreach ($busy as $entry) {
    foreach ($entry->getTrace() as $frame) {
        $names[frame_name($frame)] = true;
    }
}
var_dump(isset($names['burn_cpu']));

/* 200 ms asleep cost (almost) no CPU time: at most a few samples. */
$p->start();
usleep(200000);
$p->stop();
var_dump($p->getLog()->getEventCount() <= 10);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)

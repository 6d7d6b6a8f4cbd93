--TEST--
ExcimerLogEntry::getEventCount(): a long internal call (usleep) at a 1 ms period is one sample standing for many events
--EXTENSIONS--
excimer
--FILE--
<?php
function sleeper() {
    usleep(30000);
}

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setEventType(EXCIMER_REAL);
$p->start();
sleeper();
sleeper();
$p->stop();
$log = $p->getLog();
$max = 0;
$sum = 0;
foreach ($log as $entry) {
    if ($entry->getEventCount() > $max) {
        $max = $entry->getEventCount();
        $leaf = $entry->getTrace()[0]['function'];
    }
    $sum += $entry->getEventCount();
}
/* 60 ms at 1 ms: about 60 events in a handful of samples. */
var_dump($max >= 10, $sum === $log->getEventCount(), $sum >= 30, count($log) < $sum);
/* The big sample is taken in sleeper(), when usleep() has returned. */
var_dump($leaf);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
string(7) "sleeper"

--TEST--
ExcimerProfiler: invalid event type, zero or negative period and a non-callable flush callback warn
--EXTENSIONS--
excimer
--FILE--
<?php
$p = new ExcimerProfiler;
$p->setEventType(5);
$p->setFlushCallback('no_such_function', 10);
$p->setPeriod(0);
$p->start();
$p->setPeriod(-1);   /* taken as 0 */
$p->start();
$p->stop();          /* not running: quiet */
$p->setEventType(EXCIMER_CPU);
$p->setPeriod(0.5);
$p->start();         /* fine now */
$p->stop();
$p->stop();
echo "done\n";
?>
--EXPECTF--
Warning: ExcimerProfiler::setEventType(): Invalid event type in %s on line %d

Warning: ExcimerProfiler::setFlushCallback(): flush callback is not callable: function "no_such_function" not found or invalid function name in %s on line %d

Warning: ExcimerProfiler::start(): Unable to start timer with a value of zero duration and period in %s on line %d

Warning: ExcimerProfiler::start(): Unable to start timer with a value of zero duration and period in %s on line %d
done

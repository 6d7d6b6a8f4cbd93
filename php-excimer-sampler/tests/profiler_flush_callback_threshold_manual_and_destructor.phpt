--TEST--
ExcimerProfiler::setFlushCallback(): called with the full log at maxSamples, by flush(), and on destruction with a non-empty log
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

$flushed = [];
$cb = function (ExcimerLog $log) use (&$flushed) {
    $flushed[] = $log;
};

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setFlushCallback($cb, 4);
$p->start();
$deadline = hrtime(true) + 20e9;
while (count($flushed) < 3 && hrtime(true) < $deadline) {
}
$p->stop();
/* Each automatic flush hands over exactly maxSamples entries, each a distinct log. */
var_dump(count($flushed) >= 3);
var_dump(array_map('count', array_slice($flushed, 0, 3)));
var_dump($flushed[0] !== $flushed[1], $flushed[1] !== $p->getLog());
var_dump(count($p->getLog()) < 4);

/* Manual flush: the callback gets the old log, which flush() also returns. */
$flushed = [];
$old = $p->getLog();
$ret = $p->flush();
var_dump($ret === $old, count($flushed) === 1 && $flushed[0] === $old, count($p->getLog()));

/* Destruction with an empty log: no call. */
$flushed = [];
$p = null;
var_dump(count($flushed));

/* Destruction with a non-empty log: one last call. */
$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setFlushCallback($cb, 1000000);
$p->start();
burn_until_samples($p->getLog(), 2);
$p = null;
var_dump(count($flushed), count($flushed[0]) >= 2);

/* clearFlushCallback(): nothing is called any more. */
$flushed = [];
$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setFlushCallback($cb, 1);
$p->clearFlushCallback();
$p->start();
burn_until_samples($p->getLog(), 3);
$p->stop();
$p->flush();
$p = null;
var_dump(count($flushed));
?>
--EXPECT--
bool(true)
array(3) {
  [0]=>
  int(4)
  [1]=>
  int(4)
  [2]=>
  int(4)
}
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
int(0)
int(1)
bool(true)
int(0)

--TEST--
ExcimerProfiler: an exception thrown by the flush callback propagates into the interrupted code
--EXTENSIONS--
excimer
--FILE--
<?php
$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->setFlushCallback(function (ExcimerLog $log) {
    throw new RuntimeException('from flush callback: ' . count($log));
}, 2);
$p->start();
try {
    $deadline = hrtime(true) + 20e9;
    while (hrtime(true) < $deadline) {
    }
    echo "not interrupted\n";
} catch (RuntimeException $e) {
    echo $e->getMessage(), "\n";
}
$p->stop();
var_dump(count($p->getLog()) < 2);
?>
--EXPECT--
from flush callback: 2
bool(true)

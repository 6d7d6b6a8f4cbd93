--TEST--
ExcimerLog offsets under strict_types: "0" and 1.5 are TypeErrors, as for the original's int parameter
--EXTENSIONS--
excimer
--FILE--
<?php
declare(strict_types=1);
$p = new ExcimerProfiler; $p->setPeriod(0.001); $p->start();
$t = hrtime(true); while (hrtime(true) - $t < 30e6) {}
$p->stop(); $log = $p->getLog();
foreach ([fn() => $log->offsetGet("0"), fn() => $log->offsetExists(1.5), fn() => $p->setPeriod(1)] as $c) {
    try { var_dump(is_object($c()) || $c() !== null); } catch (TypeError $e) { echo 'TypeError: ', $e->getMessage(), "\n"; }
}
?>
--EXPECT--
TypeError: ExcimerLog::offsetGet(): Argument #1 ($offset) must be of type int, string given
TypeError: ExcimerLog::offsetExists(): Argument #1 ($offset) must be of type int, float given
bool(false)

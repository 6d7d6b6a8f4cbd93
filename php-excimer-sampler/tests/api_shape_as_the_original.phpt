--TEST--
API shape as the original's (checked against Debian's php-excimer module): parameter names in named arguments and TypeErrors, no declared types to override, ExcimerLog offsets as an int parameter, ExcimerTimer without a constructor
--EXTENSIONS--
excimer
--FILE--
<?php
// 3. the original's parameter names: named arguments, TypeError messages
$p = new ExcimerProfiler;
$p->setMaxDepth(max_depth: 3);
$p->setEventType(event_type: EXCIMER_REAL);
$p->setPeriod(period: 0.5);
$p->setFlushCallback(callback: function ($log) {}, max_samples: 10);
foreach ([fn() => $p->setPeriod("abc"), fn() => $p->setMaxDepth([]), fn() => $p->setFlushCallback('strlen', 'x'),
          fn() => $p->setMaxDepth(maxDepth: 3)] as $call) {
    try { $call(); } catch (Error $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
// 4. no declared types the original lacks: overriding without them is quiet
class MyProfiler extends ExcimerProfiler {
    public function start() { echo "start\n"; parent::start(); }
    public function setPeriod($period) { parent::setPeriod($period); }
    public function getLog(): ExcimerLog { return parent::getLog(); }
}
$m = new MyProfiler; $m->setPeriod(0.5); $m->start(); $m->stop();
class MyTimer extends ExcimerTimer {
    public function setCallback($callback) { parent::setCallback($callback); }
    public function getTime() { return parent::getTime(); }
}
var_dump((new MyTimer)->getTime());
// 7. offsets are an int parameter
require __DIR__ . '/log_helpers.inc';
$p = new ExcimerProfiler; $p->setPeriod(0.001); $p->start();
burn_until_samples($p->getLog(), 2); /* (not a fixed time: valgrind may starve the timer) */
$p->stop(); $log = $p->getLog();
foreach (["abc", [], null, "0", 1.5, 0] as $k) {
    try { var_dump(isset($log[$k])); } catch (TypeError $e) { echo 'TypeError: ', $e->getMessage(), "\n"; }
    try { var_dump(is_object($log[$k])); } catch (TypeError $e) { echo 'TypeError: ', $e->getMessage(), "\n"; }
}
// 11. no constructor: arguments are accepted, parent::__construct() is not
var_dump(get_class(new ExcimerTimer(1, 2)));
class T2 extends ExcimerTimer { function __construct() { parent::__construct(); } }
try { new T2; } catch (Error $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
var_dump((new ReflectionClass('ExcimerTimer'))->getConstructor());
?>
--EXPECTF--
TypeError: ExcimerProfiler::setPeriod(): Argument #1 ($period) must be of type float, string given
TypeError: ExcimerProfiler::setMaxDepth(): Argument #1 ($max_depth) must be of type int, array given
TypeError: ExcimerProfiler::setFlushCallback(): Argument #2 ($max_samples) must be of type int, string given
Error: Unknown named parameter $maxDepth
start
float(0)
TypeError: ExcimerLog::offsetExists(): Argument #1 ($offset) must be of type int, string given
TypeError: ExcimerLog::offsetGet(): Argument #1 ($offset) must be of type int, string given
TypeError: ExcimerLog::offsetExists(): Argument #1 ($offset) must be of type int, array given
TypeError: ExcimerLog::offsetGet(): Argument #1 ($offset) must be of type int, array given

Deprecated: ExcimerLog::offsetExists(): Passing null to parameter #1 ($offset) of type int is deprecated in %s on line 30
bool(true)

Deprecated: ExcimerLog::offsetGet(): Passing null to parameter #1 ($offset) of type int is deprecated in %s on line 31
bool(true)
bool(true)
bool(true)

Deprecated: Implicit conversion from float 1.5 to int loses precision in %s on line 30
bool(true)

Deprecated: Implicit conversion from float 1.5 to int loses precision in %s on line 31
bool(true)
bool(true)
bool(true)
string(12) "ExcimerTimer"
Error: Cannot call constructor
NULL

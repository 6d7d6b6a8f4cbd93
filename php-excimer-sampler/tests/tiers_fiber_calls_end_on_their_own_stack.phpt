--TEST--
Request tiers and Fibers: a tier call suspended in a fiber is not ended by an exception handled elsewhere; it ends when it returns
--EXTENSIONS--
excimer
--INI--
excimer.tiers="slow=slow, thrower=thrower"
--FILE--
<?php
function slow() { Fiber::suspend(1); usleep(20000); return 1; }
function thrower() { usleep(1000); throw new Exception('x'); }
$f = new Fiber(function () { return slow(); });
$f->start();                                  // slow() is open, suspended
usleep(10000);
try { thrower(); } catch (Exception $e) {}    // handled in main, not in the fiber
$f->resume();
$s = excimer_tiers_stats()['tiers_fiber_calls_end_on_their_own_stack'];
var_dump($s['slow']['calls'], $s['thrower']['calls']);
// wall time from call to return, the suspension included
var_dump($s['slow']['total_us'] >= 30000, $s['thrower']['total_us'] >= 1000);
?>
--EXPECT--
int(1)
int(1)
bool(true)
bool(true)

--TEST--
ExcimerTimer and ExcimerProfiler: INF, NAN, 1e-12 and negative intervals and periods give the original's warnings (checked against Debian's php-excimer module)
--EXTENSIONS--
excimer
--FILE--
<?php
foreach ([INF, NAN, 1e-12, -1, -INF] as $v) {
    foreach (['interval only' => [$v, 0], 'period only' => [0, $v], 'both' => [$v, $v]] as $what => [$i, $p]) {
        $x = new ExcimerTimer; $x->setInterval($i); $x->setPeriod($p); $x->setCallback(function(){});
        echo "v=$v $what: "; $x->start(); echo "getTime=", $x->getTime(), "\n"; $x->stop();
    }
}
$p = new ExcimerProfiler;
foreach ([INF, NAN, 1e-12, -1] as $v) { echo "profiler period $v: "; $p->setPeriod($v); $p->start(); $p->stop(); echo "\n"; }
?>
--EXPECTF--
v=INF interval only: 
Warning: ExcimerTimer::start(): Error in timer_settime(): Invalid argument in %s on line 5
getTime=0
v=INF period only: 
Warning: ExcimerTimer::start(): Error in timer_settime(): Invalid argument in %s on line 5
getTime=0
v=INF both: 
Warning: ExcimerTimer::start(): Error in timer_settime(): Invalid argument in %s on line 5
getTime=0
v=NAN interval only: 
Warning: ExcimerTimer::start(): Error in timer_settime(): Invalid argument in %s on line 5
getTime=0
v=NAN period only: 
Warning: ExcimerTimer::start(): Error in timer_settime(): Invalid argument in %s on line 5
getTime=0
v=NAN both: 
Warning: ExcimerTimer::start(): Error in timer_settime(): Invalid argument in %s on line 5
getTime=0
v=1.0E-12 interval only: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
v=1.0E-12 period only: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
v=1.0E-12 both: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
v=-1 interval only: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
v=-1 period only: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
v=-1 both: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
v=-INF interval only: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
v=-INF period only: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
v=-INF both: 
Warning: ExcimerTimer::start(): Unable to start timer with a value of zero duration and period in %s on line 5
getTime=0
profiler period INF: 
Warning: ExcimerProfiler::start(): Error in timer_settime(): Invalid argument in %s on line 9

profiler period NAN: 
Warning: ExcimerProfiler::start(): Error in timer_settime(): Invalid argument in %s on line 9

profiler period 1.0E-12: 
Warning: ExcimerProfiler::start(): Unable to start timer with a value of zero duration and period in %s on line 9

profiler period -1: 
Warning: ExcimerProfiler::start(): Unable to start timer with a value of zero duration and period in %s on line 9


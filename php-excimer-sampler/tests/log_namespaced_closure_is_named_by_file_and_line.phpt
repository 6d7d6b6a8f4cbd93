--TEST--
ExcimerLog: a closure declared in a namespace is {closure:FILE(LINE)} in collapsed output and {closure} in traces
--EXTENSIONS--
excimer
--FILE--
<?php
namespace App\Http;

$work = function () use (&$prof) {
    // 100 ms, and on until a sample however slow the machine (valgrind on a
    // busy one can take none in a fixed time)
    $log = $prof->getLog();
    $t = hrtime(true);
    while ((hrtime(true) - $t < 100e6 || count($log) === 0) && hrtime(true) - $t < 60e9) {
        $x = md5('x');
    }
};
$prof = new \ExcimerProfiler();
$prof->setPeriod(0.005);
$prof->setEventType(EXCIMER_REAL);
$prof->start();
$work();
$prof->stop();
$log = $prof->getLog();
$file = __FILE__;
$collapsed = $log->formatCollapsed();
var_dump(str_contains($collapsed, "$file;{closure:$file(4)} "));
var_dump(str_contains($collapsed, 'App\Http\{closure}'));
$frame = $log[0]->getTrace()[0];
var_dump($frame['function'], $frame['closure_line']);

?>
--EXPECT--
bool(true)
bool(false)
string(9) "{closure}"
int(4)

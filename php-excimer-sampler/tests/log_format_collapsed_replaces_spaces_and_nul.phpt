--TEST--
ExcimerLog::formatCollapsed(): spaces (eval'd code) and NUL bytes (anonymous classes) in frame names become "_"
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
$anon = new class {
    public function spin(ExcimerLog $log) {
        burn_until_samples($log, count($log) + 3);
    }
};
$anon->spin($p->getLog());
eval('burn_until_samples($p->getLog(), count($p->getLog()) + 3);');
$p->stop();
$log = $p->getLog();
$collapsed = $log->formatCollapsed();

var_dump(strpos($collapsed, "\0") === false);
foreach (explode("\n", rtrim($collapsed, "\n")) as $line) {
    if (substr_count($line, ' ') !== 1) {
        echo "space in a name: $line\n";
    }
}
var_dump(str_contains($collapsed, 'class@anonymous_' . __FILE__));
var_dump(str_contains($collapsed, "(13)_:_eval()'d_code;burn_until_samples "));
/* getTrace() keeps the real names. */
$classes = [];
foreach ($log as $entry) {
    foreach ($entry->getTrace() as $frame) {
        if (isset($frame['class'])) {
            $classes[$frame['class']] = true;
        }
    }
}
var_dump(isset($classes[get_class($anon)]));
var_dump($collapsed === collapsed_from_traces($log));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)

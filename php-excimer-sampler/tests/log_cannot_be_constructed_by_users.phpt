--TEST--
ExcimerLog and ExcimerLogEntry cannot be constructed by users; serialize() gives an empty object as the original's does, and unserialize() an empty log
--EXTENSIONS--
excimer
--FILE--
<?php
foreach (['ExcimerLog', 'ExcimerLogEntry'] as $class) {
    try {
        new $class;
    } catch (Error $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
$log = (new ExcimerProfiler)->getLog();
echo $s = serialize($log), "\n";
var_dump(count(unserialize($s)));
var_dump($log instanceof Iterator, $log instanceof Countable, $log instanceof ArrayAccess);
/* Made without a profiler (e.g. by a mocking library): an empty log. */
$r = new ReflectionClass('ExcimerLog');
$empty = $r->newInstanceWithoutConstructor();
var_dump(count($empty), $empty->formatCollapsed(), $empty->getEventCount());
$entry = (new ReflectionClass('ExcimerLogEntry'))->newInstanceWithoutConstructor();
var_dump($entry->getTrace(), $entry->getEventCount(), $entry->getTimestamp());
?>
--EXPECT--
Error: Call to private ExcimerLog::__construct() from global scope
Error: Call to private ExcimerLogEntry::__construct() from global scope
O:10:"ExcimerLog":0:{}
int(0)
bool(true)
bool(true)
bool(true)
int(0)
string(0) ""
int(0)
array(0) {
}
int(0)
float(0)

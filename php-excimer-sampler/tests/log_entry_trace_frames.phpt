--TEST--
ExcimerLogEntry::getTrace(): leaf first; methods, functions, closures, internal functions and file-scope code
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

class Svc {
    public function handle(ExcimerLog $log) {
        return array_map(function ($x) use ($log) {
            return leaf($log);
        }, [1]);
    }
}
function leaf(ExcimerLog $log) {
    $deadline = hrtime(true) + 20e9;
    $n = count($log); while (count($log) <= $n && hrtime(true) < $deadline) {
    }
    return $n; /* the index of the first sample taken in this loop */
}

$p = new ExcimerProfiler;
$p->setPeriod(0.001);
$p->start();
[$index] = (new Svc)->handle($p->getLog());
$p->stop();
$entry = $p->getLog()[$index];
var_dump($entry instanceof ExcimerLogEntry, $entry->getEventCount() >= 1, $entry->getTimestamp() > 0);
$trace = $entry->getTrace();
foreach ($trace as &$frame) {
    if ($frame['file'] === __FILE__) {
        $frame['file'] = 'FILE';
    }
}
unset($frame);
var_dump($trace);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
array(5) {
  [0]=>
  array(3) {
    ["file"]=>
    string(4) "FILE"
    ["line"]=>
    int(13)
    ["function"]=>
    string(4) "leaf"
  }
  [1]=>
  array(5) {
    ["file"]=>
    string(4) "FILE"
    ["line"]=>
    int(7)
    ["class"]=>
    string(3) "Svc"
    ["function"]=>
    string(9) "{closure}"
    ["closure_line"]=>
    int(6)
  }
  [2]=>
  array(3) {
    ["file"]=>
    string(0) ""
    ["line"]=>
    int(0)
    ["function"]=>
    string(9) "array_map"
  }
  [3]=>
  array(4) {
    ["file"]=>
    string(4) "FILE"
    ["line"]=>
    int(6)
    ["class"]=>
    string(3) "Svc"
    ["function"]=>
    string(6) "handle"
  }
  [4]=>
  array(2) {
    ["file"]=>
    string(4) "FILE"
    ["line"]=>
    int(21)
  }
}

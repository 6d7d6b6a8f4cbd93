--TEST--
ExcimerLog::getSpeedscopeData(): speedscope file format with frames, root-to-leaf samples, weights = events x period
--EXTENSIONS--
excimer
--FILE--
<?php
require __DIR__ . '/log_helpers.inc';

function outer(ExcimerLog $log) { inner($log); }
function inner(ExcimerLog $log) { burn_until_samples($log, count($log) + 10); }

$p = new ExcimerProfiler;
$p->setPeriod(0.002);
$p->start();
outer($p->getLog());
$p->stop();
$log = $p->getLog();
$data = $log->getSpeedscopeData();

var_dump(array_keys($data));
var_dump($data['$schema'], $data['exporter']);
$profile = $data['profiles'][0];
var_dump(count($data['profiles']), array_keys($profile));
var_dump($profile['type'], $profile['name'], $profile['unit'], $profile['startValue']);
$frames = $data['shared']['frames'];
var_dump(array_keys($frames[0]));

/* Samples: one per entry, frame indexes root..leaf, the names of the trace. */
$ok = count($profile['samples']) === count($log) && count($profile['weights']) === count($log);
foreach ($log as $i => $entry) {
    $names = array_map(fn ($f) => $frames[$f]['name'], $profile['samples'][$i]);
    $expect = array_map('frame_name', array_reverse($entry->getTrace()));
    $ok = $ok && $names === $expect;
    $ok = $ok && $profile['weights'][$i] === $entry->getEventCount() * 2000000;
}
var_dump($ok);
/* Frames are functions: no name twice. */
$names = array_column($frames, 'name');
var_dump(count($names) === count(array_unique($names)));
$byName = array_column($frames, 'file', 'name');
var_dump($byName['outer'] === __FILE__, $byName['burn_until_samples'] === __DIR__ . '/log_helpers.inc');
/* endValue: nanoseconds from the first to the last sample. */
$span = ($log[count($log) - 1]->getTimestamp() - $log[0]->getTimestamp()) * 1e9;
var_dump(is_int($profile['endValue']) && abs($profile['endValue'] - $span) < 2);
var_dump(json_encode($data) !== false);

$empty = $p->flush();
$empty = $p->getLog()->getSpeedscopeData();
var_dump($empty['profiles'][0]['samples'], $empty['profiles'][0]['endValue']);
?>
--EXPECT--
array(4) {
  [0]=>
  string(7) "$schema"
  [1]=>
  string(8) "exporter"
  [2]=>
  string(6) "shared"
  [3]=>
  string(8) "profiles"
}
string(50) "https://www.speedscope.app/file-format-schema.json"
string(7) "Excimer"
int(1)
array(7) {
  [0]=>
  string(4) "type"
  [1]=>
  string(4) "name"
  [2]=>
  string(4) "unit"
  [3]=>
  string(10) "startValue"
  [4]=>
  string(8) "endValue"
  [5]=>
  string(7) "samples"
  [6]=>
  string(7) "weights"
}
string(7) "sampled"
string(0) ""
string(11) "nanoseconds"
int(0)
array(2) {
  [0]=>
  string(4) "name"
  [1]=>
  string(4) "file"
}
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
array(0) {
}
int(0)

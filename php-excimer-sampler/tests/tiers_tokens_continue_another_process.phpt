--TEST--
Request tiers: excimer_tiers_request_id() and excimer_tiers_continue() carry identity and sampling to another process
--EXTENSIONS--
excimer
--INI--
excimer.tiers="work=work"
--FILE--
<?php
require __DIR__ . '/tiers_helpers.inc';
function work() { usleep(500); return 1; }

excimer_tiers_set_identity('api:edit page/ü');
$token = excimer_tiers_request_id();
var_dump(preg_match('/^t1\.1\.[0-9a-f]{16}\.api:edit%20page%2F%C3%BC$/', $token));
var_dump($token === excimer_tiers_request_id()); // one id per request

// A job runner: its own work, then a job queued by that request, then another.
excimer_tiers_set_identity('runner');
work();
var_dump(excimer_tiers_continue($token));
work(); work();
var_dump(excimer_tiers_request_id() === $token); // the chain keeps its id
// an unsampled request's job is not traced either
$unsampled = 't1.0.0123456789abcdef.view';
var_dump(excimer_tiers_continue($unsampled));
work();
var_dump(excimer_tiers_status()['tracing']);
var_dump(excimer_tiers_continue($token));
work();
print_r(tier_calls());
// each continue() closed the time before it under the identity it had
$s = excimer_tiers_stats();
var_dump($s['runner']['_total']['calls'], $s['api:edit page/ü']['_total']['calls']);

// hostile or broken tokens change nothing
foreach (['', 'x', 't1.2.0123456789abcdef.view', 't1.1.0123456789abcdeX.view', 't1.1.0123456789abcdef.',
          't1.1.0123456789abcdef.a b', 't1.1.0123456789abcdef.%C3', 't1.1.0123456789abcdef.%zz',
          't1.1.0123456789abcdef.' . str_repeat('x', 256)] as $bad) {
    var_dump(@excimer_tiers_continue($bad));
}
excimer_tiers_continue('t1.1.0123456789abcdef.<script>');
work();
var_dump(isset(excimer_tiers_stats()['api:edit page/ü']));
?>
--EXPECTF--
int(1)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
Array
(
    [api:edit page/ü/_total] => 1
    [api:edit page/ü/work] => 3
    [runner/_total] => 1
    [runner/work] => 1
)
int(1)
int(1)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)

Warning: excimer_tiers_continue(): Not a token of excimer_tiers_request_id() in %s on line %d
bool(true)

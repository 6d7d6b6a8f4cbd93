--TEST--
Request tiers: recursion counts the outermost call, exceptions and loops end calls where they end, other code runs unchanged
--EXTENSIONS--
excimer
--INI--
excimer.tiers="walk=walk, outer=Outer::run, inner=inner, loop=spin, thrower=Thrower::fail, gen=gen, sibling=sibling"
--FILE--
<?php
require __DIR__ . '/tiers_helpers.inc';
function walk($n) { return $n ? walk($n - 1) + 1 : 0; }
function inner() { usleep(1000); return 1; }
class Outer { static function run() { usleep(1000); return inner() + inner(); } }
// the first opline of the body is the head of the loop: jumped to again and again
function spin($n) { do { $n--; } while ($n > 0); return $n; }
class Thrower {
    function fail($depth) {
        if ($depth === 0) { usleep(3000); throw new RuntimeException('deep'); }
        return $this->fail($depth - 1);
    }
}
function gen() { yield 1; yield 2; }
function sibling() { return debug_backtrace()[0]['line']; }

excimer_tiers_set_identity('job');
var_dump(walk(50));                     // 51 nested calls of one tier: 1 call
Outer::run();                           // outer contains inner twice
spin(1000);
$t = new Thrower;
for ($i = 0; $i < 2; $i++) {
    try { $t->fail(3); } catch (RuntimeException $e) { echo $e->getMessage(), "\n"; }
}
foreach (gen() as $v) {}                // generators are not timed
var_dump(sibling() === __LINE__);       // the caller's line, as without tiers
print_r(tier_calls());
$s = excimer_tiers_stats()['job'];
// the outer call includes both inner calls; the exception's calls end when it is caught
var_dump($s['outer']['total_us'] >= $s['inner']['total_us'] + 1000);
var_dump($s['thrower']['total_us'] >= 6000, $s['thrower']['total_us'] < 1e6);
var_dump(excimer_tiers_status()['skipped']);
?>
--EXPECT--
int(50)
deep
deep
bool(true)
Array
(
    [job/inner] => 2
    [job/loop] => 1
    [job/outer] => 1
    [job/sibling] => 1
    [job/thrower] => 2
    [job/walk] => 1
)
bool(true)
bool(true)
bool(true)
int(0)

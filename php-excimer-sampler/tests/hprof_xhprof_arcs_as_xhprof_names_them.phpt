--TEST--
xhprof_enable()/xhprof_disable(): arcs named as PECL xhprof 2.x names them on PHP 8.2 — main() as the root of calls made after enable, recursion (foo==>bar==>foo@1), closures, generators (a call per resume), exceptions unwinding, load:: with the path's last two components for include (its top-level calls are the includer's: no run_init::), eval:: for the compile of eval()'d code only, a Fiber's calls below the Fiber::start() that began them, and xhprof_disable() deep in the stack
--EXTENSIONS--
excimer
xhprof
--FILE--
<?php
require __DIR__ . '/hprof_helpers.inc';
/* found as XHGui's collector looks for it */
var_dump(extension_loaded('xhprof'), function_exists('xhprof_enable'), XHPROF_FLAGS_MEMORY);
function pre() { return abs(-1); }
pre(); // first called before enable: still profiled afterwards
function foo($n) { return $n <= 0 ? 0 : bar($n); }
function bar($n) { return foo($n - 1); }
function gen() { yield 1; yield 2; yield 3; }
function thrower($n) { if ($n == 0) throw new Exception("x"); thrower($n - 1); }
class K { function m() { return (function () { return 1; })(); } }
function deep_disable() { return xhprof_disable(); }
function enable_deep() { xhprof_enable(); }

$lib = sys_get_temp_dir() . '/hprof-lib-' . getmypid() . '.php';
file_put_contents($lib, '<?php function from_lib() { return 1; } from_lib();');

enable_deep(); // enabled one frame down: later calls still hang below main()
pre();
foo(2);
foreach (gen() as $v) {}
try { thrower(2); } catch (Exception $e) {}
(new K)->m();
include $lib;
eval('from_lib();');
$f = new Fiber(function () { $x = Fiber::suspend(1); pre(); return $x; });
$f->start();
pre();
$f->resume(2);
$r = deep_disable();
hprof_check($r);
unlink($lib);

$arcs = [];
foreach ($r as $k => $v) {
    $last_two = basename(dirname($lib)) . '/' . basename($lib);
    $arcs[] = str_replace([$lib, __FILE__, $last_two], ['LIB', 'THIS', 'DIR/LIB'], $k) . " " . $v['ct'];
}
sort($arcs);
echo implode("\n", $arcs), "\n";
var_dump(array_keys($r['main()']), $r['main()']['wt'] >= $r['main()==>foo']['wt']);
var_dump(xhprof_disable());
?>
--EXPECT--
bool(true)
bool(true)
int(4)
Fiber::start==>{closure} 1
K::m==>K::{closure} 1
bar==>foo@1 1
bar@1==>foo@2 1
deep_disable==>xhprof_disable 1
foo==>bar 1
foo@1==>bar@1 1
main() 1
main()==>Fiber::__construct 1
main()==>Fiber::resume 1
main()==>Fiber::start 1
main()==>K::m 1
main()==>deep_disable 1
main()==>eval::THIS(25) : eval()'d code 1
main()==>foo 1
main()==>from_lib 2
main()==>gen 4
main()==>load::DIR/LIB 1
main()==>pre 2
main()==>thrower 1
pre==>abs 3
thrower==>thrower@1 1
thrower@1==>thrower@2 1
thrower@2==>Exception::__construct 1
{closure}==>Fiber::suspend 1
{closure}==>pre 1
array(2) {
  [0]=>
  string(2) "ct"
  [1]=>
  string(2) "wt"
}
bool(true)
NULL

--TEST--
hierarchical names as each original prints them on PHP 8.2: recursion levels by printed name (distinct closures printed alike nest as {closure}@1), same-named arcs add up (three closures called from one function: ct=3), trait methods named by the class they were called through, include/eval per module (PECL xhprof: load:: last two path components, no run_init::, eval:: the compile; tideways: none; uprofiler: load::/run_init:: with the path, eval:: the code), and a second *_enable() during a run changes nothing
--EXTENSIONS--
excimer
xhprof
tideways_xhprof
uprofiler
--FILE--
<?php
namespace App\Http;
require __DIR__ . '/hprof_helpers.inc';
trait T { function tm() { return 1; } }
class A { use T; }
class B { use T; }
function call1() {
    $fs = [function () { return 1; }, function () { return 2; }, function () { return 3; }];
    foreach ($fs as $f) $f();
}
function nest() {
    $outer = function () { $inner = function () { return 1; }; return $inner(); };
    return $outer();
}
$modules = ['xhprof' => ['\xhprof_enable', '\xhprof_disable'],
            'tideways_xhprof' => ['\tideways_xhprof_enable', '\tideways_xhprof_disable'],
            'uprofiler' => ['\uprofiler_enable', '\uprofiler_disable']];
foreach ($modules as $module => [$enable, $disable]) {
    echo "== $module\n";
    /* a file declaring a function and calling it at its top level */
    $fn = 'from_lib_' . $module;
    $lib = sys_get_temp_dir() . '/hprof-names-' . getmypid() . "-$module.php";
    file_put_contents($lib, "<?php function $fn() { return 1; } $fn();");
    $replace = [$lib => 'LIB', basename(dirname($lib)) . '/' . basename($lib) => 'DIR/LIB',
                __FILE__ => 'THIS', $fn => 'from_lib'];
    $enable();
    call1();
    nest();
    (new A)->tm();
    (new B)->tm();
    $enable(); // changes nothing: the run goes on with what it has
    include $lib;
    eval("\\$fn();");
    $run = $disable();
    unlink($lib);
    echo hprof_keys($run, $replace);
    hprof_check($run);
}
?>
--EXPECT--
== xhprof
App\Http\call1==>App\Http\{closure} ct=3
App\Http\nest==>App\Http\{closure} ct=1
App\Http\{closure}==>App\Http\{closure}@1 ct=1
main() ct=1
main()==>App\Http\A::tm ct=1
main()==>App\Http\B::tm ct=1
main()==>App\Http\call1 ct=1
main()==>App\Http\nest ct=1
main()==>eval::THIS(33) : eval()'d code ct=1
main()==>from_lib ct=2
main()==>load::DIR/LIB ct=1
main()==>xhprof_disable ct=1
main()==>xhprof_enable ct=1
== tideways_xhprof
App\Http\call1==>App\Http\{closure} ct=3
App\Http\nest==>App\Http\{closure} ct=1
App\Http\{closure}==>App\Http\{closure}@1 ct=1
main() ct=1
main()==>App\Http\A::tm ct=1
main()==>App\Http\B::tm ct=1
main()==>App\Http\call1 ct=1
main()==>App\Http\nest ct=1
main()==>from_lib ct=2
main()==>tideways_xhprof_disable ct=1
main()==>tideways_xhprof_enable ct=1
== uprofiler
App\Http\call1==>App\Http\{closure} ct=3
App\Http\nest==>App\Http\{closure} ct=1
App\Http\{closure}==>App\Http\{closure}@1 ct=1
eval::THIS(33) : eval()'d code==>from_lib ct=1
main() ct=1
main()==>App\Http\A::tm ct=1
main()==>App\Http\B::tm ct=1
main()==>App\Http\call1 ct=1
main()==>App\Http\nest ct=1
main()==>eval::THIS(33) : eval()'d code ct=1
main()==>load::LIB ct=1
main()==>run_init::LIB ct=1
main()==>uprofiler_disable ct=1
main()==>uprofiler_enable ct=1
run_init::LIB==>from_lib ct=1

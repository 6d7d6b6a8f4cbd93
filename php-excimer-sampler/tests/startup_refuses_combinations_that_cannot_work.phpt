--TEST--
A combination of settings that cannot work is refused at start-up with a message, once (not at every request): excimer.hprof_sample_rate with excimer.hprof = 0; excimer.tiers with opcache's JIT configured (user functions cannot be patched where the JIT runs; internal functions still are tiers)
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the processes under test run outside valgrind');
?>
--FILE--
<?php
preg_match('#\s(/\S*/)excimer\.so$#m', file_get_contents('/proc/self/maps'), $m);
function php_with(string $lib, array $ini, string $code): string {
    $cmd = [PHP_BINARY, '-n', '-d', 'display_startup_errors=1', '-d', 'display_errors=1'];
    foreach ($ini as $k => $v)
        array_push($cmd, '-d', "$k=$v");
    array_push($cmd, '-d', "extension={$lib}excimer.so", '-r', $code);
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
    proc_close($p);
    return trim($out);
}
echo php_with($m[1], ['excimer.hprof' => '0', 'excimer.hprof_sample_rate' => '1'],
              'echo "ran\n";'), "\n";
echo php_with($m[1], ['zend_extension' => 'opcache', 'opcache.enable_cli' => '1',
                      'opcache.jit_buffer_size' => '8M', 'excimer.tiers' => '"re=preg_match,u=f"'],
              'function f() { return 1; } f(); preg_match("/a/", "a");
               $s = excimer_tiers_status(); var_dump($s["user_functions"]);
               print_r(excimer_tiers_stats());'), "\n";
?>
--EXPECTF--
%sexcimer.hprof_sample_rate needs excimer.hprof = 1: no request will be profiled hierarchically in Unknown on line 0
ran
%sexcimer.tiers: user functions cannot be tiers here (opcache.jit_buffer_size is set (the JIT would not see them)); internal functions still are in Unknown on line 0
bool(false)
Array
(
    [undefined] => Array
        (
            [re] => Array
                (
                    [calls] => 1
%A

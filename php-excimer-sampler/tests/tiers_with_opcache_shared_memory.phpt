--TEST--
Request tiers with opcache: tier functions patched in opcache's shared memory are timed in every request, and cost nothing when switched off
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed');
if (!is_file(ini_get('extension_dir') . '/opcache.so')) die('skip opcache not installed');
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the requests under test run outside valgrind');
?>
--FILE--
<?php
require __DIR__ . '/tiers_helpers.inc';
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-tiers');
file_put_contents("$dir/lib.php", '<?php
class Repo {
    function find($id) { if ($id < 0) throw new InvalidArgumentException("neg"); return $id * 2; }
    function plain($x) { return $x + 1; }
}
function render(array $rows) { $out = ""; foreach ($rows as $r) $out .= $r; return $out; }
');
file_put_contents("$dir/app.php", '<?php
require __DIR__ . "/lib.php";
$n = (int)@file_get_contents(__DIR__ . "/n");
file_put_contents(__DIR__ . "/n", $n + 1);
if ($n == 2) { file_put_contents(__DIR__ . "/control", "off"); }
if ($n == 4) { file_put_contents(__DIR__ . "/control", "on"); }
excimer_tiers_set_identity("page");
$r = new Repo;
for ($i = 0; $i < 5; $i++) { $r->find($i); $r->plain($i); }
try { $r->find(-1); } catch (InvalidArgumentException $e) {}
echo render(["a", "b"]), " ";
$s = excimer_tiers_status();
$c = excimer_tiers_stats()["page"] ?? [];
printf("request %d: opcache=%d tracing=%d shared=%d private=%d find=%d render=%d\n", $n,
       function_exists("opcache_get_status") && opcache_get_status(false)["opcache_enabled"],
       $s["tracing"], $s["patched_shared"] > 0, $s["patched_private"] > 0,
       $c["find"]["calls"] ?? 0, $c["render"]["calls"] ?? 0);
if ($n == 2 || $n == 4) usleep(1100000); // past the once-a-second check
');
echo cgi_requests("$dir/app.php", 6, ['zend_extension' => 'opcache', 'opcache.enable' => 1,
    'opcache.enable_cli' => 1, 'opcache.file_update_protection' => 0,
    'excimer.tiers' => '"find=Repo::find, render=render"',
    'excimer.tiers_control' => "$dir/control", 'excimer.tiers_flush_interval' => 3600]);
?>
--EXPECTF--
ab request 0: opcache=1 tracing=1 shared=1 private=0 find=6 render=1
ab request 1: opcache=1 tracing=1 shared=1 private=0 find=12 render=2
ab request 2: opcache=1 tracing=1 shared=1 private=0 find=18 render=3
ab request 3: opcache=1 tracing=0 shared=1 private=0 find=18 render=3
ab request 4: opcache=1 tracing=0 shared=1 private=0 find=18 render=3
ab request 5: opcache=1 tracing=1 shared=1 private=0 find=24 render=4
%A

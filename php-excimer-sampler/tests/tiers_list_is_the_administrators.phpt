--TEST--
Request tiers: the tier list is the administrator's: a site's .user.ini and ini_set() cannot change it (its patches live in memory every pool of a php-fpm master shares)
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed');
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the request under test runs outside valgrind');
?>
--FILE--
<?php
// The module file this test runs with: php-cgi loads the same one.
preg_match('#\s(/\S*excimer\.so)$#m', file_get_contents('/proc/self/maps'), $m);
$so = $m[1];
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-tiers-userini');
// The site's own settings: a PHP_INI_ALL one proves php-cgi read the file.
file_put_contents("$dir/.user.ini", implode("\n", [
    'highlight.comment = "#123456"',
    'excimer.tiers = "evil=str_repeat, evil=strlen"',
]) . "\n");
file_put_contents("$dir/index.php", '<?php
function work() { return str_repeat("x", 3); }
function other() { return strlen("abc"); }
echo "highlight.comment=", ini_get("highlight.comment"), "\n";
echo "excimer.tiers=", ini_get("excimer.tiers"), "\n";
var_dump(ini_set("excimer.tiers", "mine=other, mine=strtoupper"));
work(); other(); strtoupper("a");
echo "tiers: ", json_encode(excimer_tiers_status()["tiers"]), "\n";
$calls = [];
foreach (excimer_tiers_stats() as $identity => $tiers) {
    foreach ($tiers as $tier => $t) {
        $calls[] = "$identity/$tier=" . $t["calls"];
    }
}
sort($calls);
echo "calls: ", implode(" ", $calls), "\n";');

$cmd = ['/usr/bin/php-cgi8.2', '-n', '-d', "extension=$so", '-d', 'excimer.tiers="w=work"',
        '-d', 'excimer.tiers_flush_interval=3600'];
// As a web server runs it: the .user.ini files are looked up from DOCUMENT_ROOT.
$env = ['PATH' => '/usr/bin:/bin', 'REDIRECT_STATUS' => '1', 'REQUEST_METHOD' => 'GET',
        'DOCUMENT_ROOT' => "$dir", 'SCRIPT_FILENAME' => "$dir/index.php"];
$p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
$out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
proc_close($p);
echo preg_replace('/^.*?\r\n\r\n/s', '', $out), "\n";

// What the administrator sets is checked as before: a bad value is refused
// with a warning at startup, and the process has no tiers.
require __DIR__ . '/tiers_helpers.inc';
file_put_contents("$dir/show.php", '<?php echo "tiers: ", json_encode(excimer_tiers_status()["tiers"]), "\n";');
foreach (['"no equals sign"', '"_total=a"', '"x=a, y=b"'] as $value) {
    echo "-- $value\n", cgi_requests("$dir/show.php", 1, ['excimer.tiers' => $value, 'html_errors' => 0]);
}
?>
--EXPECTF--
highlight.comment=#123456
excimer.tiers=w=work
bool(false)
tiers: {"w":["work"]}
calls: index/w=1

-- "no equals sign"
tiers: []
%AWarning: PHP Startup: excimer.tiers: an item is not tier=function in Unknown on line 0
%A
-- "_total=a"
tiers: []
%AWarning: PHP Startup: excimer.tiers: a tier name must be 1-64 of [A-Za-z0-9_.-], not starting with '_' in Unknown on line 0
%A
-- "x=a, y=b"
tiers: {"x":["a"],"y":["b"]}
%A

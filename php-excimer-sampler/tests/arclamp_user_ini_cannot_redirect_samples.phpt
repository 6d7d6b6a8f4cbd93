--TEST--
Zero-code collection: a site's .user.ini cannot send the stacks elsewhere, nor change how they are taken, nor raise the timeout past its cap
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
$dir = private_temp_dir('excimer-userini');
$host_sock = "$dir/host.sock";
$evil_sock = "$dir/evil.sock";
$host = stream_socket_server("udg://$host_sock", $errno, $errstr, STREAM_SERVER_BIND);
$evil = stream_socket_server("udg://$evil_sock", $errno, $errstr, STREAM_SERVER_BIND);
mkdir("$dir/site");
// The site's own settings: a PHP_INI_ALL one proves php-cgi read the file.
file_put_contents("$dir/site/.user.ini", implode("\n", [
    'highlight.comment = "#123456"',
    "excimer.arclamp_target = \"unix://$evil_sock\"",
    'excimer.arclamp_period = 5',
    'excimer.arclamp_event_type = cpu',
    'excimer.arclamp_max_depth = 1',
    'excimer.arclamp_timeout_max = 60',
    'excimer.arclamp_timeout = 30',
]) . "\n");
file_put_contents("$dir/site/index.php", '<?php
foreach (["highlight.comment", "excimer.arclamp_target", "excimer.arclamp_period",
          "excimer.arclamp_event_type", "excimer.arclamp_max_depth", "excimer.arclamp_timeout_max",
          "excimer.arclamp_timeout"] as $k) {
    echo "$k=", ini_get($k), "\n";
}
var_dump(ini_set("excimer.arclamp_target", "unix:///elsewhere"));
var_dump(ini_set("excimer.arclamp_timeout", "2"), ini_get("excimer.arclamp_timeout"));
var_dump(ini_set("excimer.arclamp_timeout", "0.5"), ini_get("excimer.arclamp_timeout"));
function work() { $t = hrtime(true); while (hrtime(true) - $t < 200e6) { $x = md5("x"); } }
work();');

$cmd = ['/usr/bin/php-cgi8.2', '-n', '-d', "extension=$so",
        '-d', "excimer.arclamp_target=unix://$host_sock", '-d', 'excimer.arclamp_period=0.01',
        '-d', 'excimer.arclamp_event_type=real'];
// As a web server runs it: the .user.ini files are looked up from DOCUMENT_ROOT.
$env = ['PATH' => '/usr/bin:/bin', 'REDIRECT_STATUS' => '1', 'REQUEST_METHOD' => 'GET',
        'DOCUMENT_ROOT' => "$dir/site", 'SCRIPT_FILENAME' => "$dir/site/index.php"];
$p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
$out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
proc_close($p);
echo preg_replace('/^.*?\r\n\r\n/s', '', str_replace($dir, 'DIR', $out));

function received($server): string {
    $got = '';
    $deadline = microtime(true) + 0.5;
    while (microtime(true) < $deadline) {
        $r = [$server]; $w = $e = null;
        if (stream_select($r, $w, $e, 0, 100000)) {
            $got .= stream_socket_recvfrom($server, 200000);
        }
    }
    return $got;
}
$to_host = received($host);
$to_evil = received($evil);
// Sampled at the host's period and depth: work() under the entry point.
echo "host got samples of work(): ", var_export(str_contains($to_host, 'index.php;work '), true), "\n";
echo "evil got: ", strlen($to_evil), " bytes\n";
?>
--EXPECT--
highlight.comment=#123456
excimer.arclamp_target=unix://DIR/host.sock
excimer.arclamp_period=0.01
excimer.arclamp_event_type=real
excimer.arclamp_max_depth=250
excimer.arclamp_timeout_max=1
excimer.arclamp_timeout=0.1
bool(false)
bool(false)
string(3) "0.1"
string(3) "0.1"
string(3) "0.5"
host got samples of work(): true
evil got: 0 bytes

--TEST--
Request tiers: a request that names no identity is its entry point as the trace logs name it (index.php is "index", api.php "api"), without glue code; an entry point that is no valid tag name is "undefined"
--EXTENSIONS--
excimer
--SKIPIF--
<?php
if (!is_executable('/usr/bin/php-cgi8.2')) die('skip php-cgi not installed');
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the requests under test run outside valgrind');
?>
--FILE--
<?php
require __DIR__ . '/tiers_helpers.inc';
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-identity');
$app = '<?php
function query() { return 1; }
query();
query();
echo json_encode(array_map(fn($t) => $t["db"]["calls"] ?? 0, excimer_tiers_stats())), "\n";
';
foreach (['index.php', 'api.php', 'my page.php'] as $name) {
    file_put_contents("$dir/$name", $app);
    echo "$name: ", strtok(cgi_requests("$dir/$name", 1, ['excimer.tiers' => '"db=query"']), "\n"), "\n";
}
?>
--EXPECT--
index.php: {"index":2}
api.php: {"api":2}
my page.php: {"undefined":2}

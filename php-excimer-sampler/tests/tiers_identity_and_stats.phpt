--TEST--
Request tiers: only the named functions are timed, per identity; stats() shape; identity checks
--EXTENSIONS--
excimer
--INI--
excimer.tiers="parse=Parser::parse, db=App\Db::query, db=App\Db::select, re=preg_match, fmt=format_row"
--FILE--
<?php
namespace App {
    class Db {
        function query(string $sql) { usleep(2000); return 1; }
        function select(string $t, int $limit = 10, ...$more) { return $this->query("SELECT $limit"); }
    }
}
namespace {
    require __DIR__ . '/tiers_helpers.inc';
    class Parser { function parse($text) { usleep(1000); return strlen($text); } }
    function format_row($r) { return implode(',', $r); }
    function not_a_tier() { return 1; }

    $db = new App\Db;
    $p = new Parser;
    $p->parse('before any identity');   // the entry point's name until one is set
    var_dump(excimer_tiers_set_identity('view'));
    for ($i = 0; $i < 3; $i++) {
        $p->parse("x$i");
        $db->query('SELECT 1');
        format_row([1, 2]);
        not_a_tier();
    }
    // default, missing and extra arguments: the entry is seen once per call
    $db->select('t');
    $db->select('t', 5, 'a', 'b');
    preg_match('/a/', 'abc');
    print_r(tier_calls());

    $s = excimer_tiers_stats()['view']['parse'];
    var_dump(array_keys($s));
    var_dump(is_int($s['calls']), is_float($s['total_us']));
    // three calls of 1 ms sleeps: at least 3 ms, percentiles ordered
    var_dump($s['total_us'] >= 3000, $s['p50_us'] >= 1000, $s['p50_us'] <= $s['p90_us'],
             $s['p90_us'] <= $s['p99_us']);
    // select() and query() are the same tier: a select counts once, its query
    // inside is the same tier re-entered
    $db2 = excimer_tiers_stats()['view']['db'];
    var_dump($db2['calls']);

    // identities: 1-255 bytes of UTF-8
    var_dump(excimer_tiers_set_identity(''));
    var_dump(excimer_tiers_set_identity(str_repeat('x', 256)));
    var_dump(excimer_tiers_set_identity("caf\xc3"));
    var_dump(excimer_tiers_set_identity("api:query <b>\"x\"</b>"));
    $p->parse('y');
    var_dump(excimer_tiers_stats()["api:query <b>\"x\"</b>"]['parse']['calls']);
    $st = excimer_tiers_status();
    var_dump($st['enabled'], $st['tracing'], $st['tiers']['db']);
}
?>
--EXPECTF--
bool(true)
Array
(
    [tiers_identity_and_stats/parse] => 1
    [view/db] => 5
    [view/fmt] => 3
    [view/parse] => 3
    [view/re] => 1
)
array(5) {
  [0]=>
  string(5) "calls"
  [1]=>
  string(8) "total_us"
  [2]=>
  string(6) "p50_us"
  [3]=>
  string(6) "p90_us"
  [4]=>
  string(6) "p99_us"
}
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(5)

Warning: excimer_tiers_set_identity(): The identity must be 1 to 255 bytes of valid UTF-8 in %s on line %d
bool(false)

Warning: excimer_tiers_set_identity(): The identity must be 1 to 255 bytes of valid UTF-8 in %s on line %d
bool(false)

Warning: excimer_tiers_set_identity(): The identity must be 1 to 255 bytes of valid UTF-8 in %s on line %d
bool(false)
bool(true)
int(1)
bool(true)
bool(true)
array(2) {
  [0]=>
  string(13) "app\db::query"
  [1]=>
  string(14) "app\db::select"
}

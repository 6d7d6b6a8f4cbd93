<?php
// One request of a page that calls a tier function 1,000 times (a Database
// query-like method with a little work in it); run by php-cgi -T.
class Db {
    function query(string $sql) { return strlen($sql) + 1; }
}
excimer_tiers_set_identity('view');
$db = new Db;
$n = 0;
for ($i = 0; $i < 1000; $i++) {
    $n += $db->query("SELECT $i");
}
echo $n, "\n";

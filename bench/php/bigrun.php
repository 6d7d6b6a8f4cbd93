<?php
/* A request whose hierarchical run is the size of a MediaWiki page view's:
 * 3,000 methods of 300 namespaced classes with long names, each called from
 * three places, about 9,000 distinct arcs (bench/delivery.py). */
$n = 300;
for ($c = 0; $c < $n; $c++) {
    $methods = '';
    for ($m = 0; $m < 10; $m++)
        $methods .= "public function lookupRevisionRecordByTitleAndSlot$m(\$x) { return \$x + $m; }\n";
    eval("namespace MediaWiki\\Revision\\Storage\\Layer$c; class RevisionStoreCacheWrapper$c { $methods }");
}
function caller_a($o, $m) { return $o->$m(1); }
function caller_b($o, $m) { return $o->$m(2); }
function caller_c($o, $m) { return $o->$m(3); }
$sum = 0;
for ($c = 0; $c < $n; $c++) {
    $class = "MediaWiki\\Revision\\Storage\\Layer$c\\RevisionStoreCacheWrapper$c";
    $o = new $class;
    for ($m = 0; $m < 10; $m++) {
        $method = "lookupRevisionRecordByTitleAndSlot$m";
        $sum += caller_a($o, $method) + caller_b($o, $method) + caller_c($o, $method);
    }
}
echo "served $sum\n";

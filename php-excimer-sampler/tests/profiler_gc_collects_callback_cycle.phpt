--TEST--
ExcimerProfiler: a flush callback that references the profiler forms a cycle the garbage collector frees
--EXTENSIONS--
excimer
--FILE--
<?php
class Marker {
    public function __destruct() { echo "marker destroyed\n"; }
}

function make_cycle() {
    $p = new ExcimerProfiler;
    $marker = new Marker;
    $p->setFlushCallback(function ($log) use ($p, $marker) {}, 10);
    /* Replacing the callback releases the old one (no leak). */
    $p->setFlushCallback(function ($log) use ($p, $marker) {}, 10);
}

make_cycle();
echo "after make_cycle\n";
var_dump(gc_collect_cycles() > 0);
echo "end\n";
?>
--EXPECT--
after make_cycle
marker destroyed
bool(true)
end

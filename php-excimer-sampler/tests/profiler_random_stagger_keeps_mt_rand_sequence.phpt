--TEST--
ExcimerProfiler: creating it and setPeriod() (random first-sample stagger) do not move the seeded mt_rand() sequence
--EXTENSIONS--
excimer
--FILE--
<?php
mt_srand(1234);
$expect = [mt_rand(), mt_rand(), mt_rand()];
mt_srand(1234);
$got = [mt_rand()];
$p = new ExcimerProfiler;
$p->setPeriod(0.5);
$got[] = mt_rand();
$p->setPeriod(0.25);
$p->start();
$p->stop();
$got[] = mt_rand();
var_dump($got === $expect);
?>
--EXPECT--
bool(true)

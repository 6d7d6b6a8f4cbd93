--TEST--
ExcimerProfiler::setPeriod(1e-9) is a period of 1 ns, as in the original (checked against Debian's php-excimer module): start() neither warns nor refuses, whatever random first interval below 1 ns it draws; 1e-12 is still refused as zero
--EXTENSIONS--
excimer
--FILE--
<?php
for ($i = 0; $i < 20; $i++) { // the first interval is random in [0, period)
    $p = new ExcimerProfiler;
    $p->setPeriod(1e-9);
    $p->setEventType(EXCIMER_REAL);
    $p->start();
    /* waits for the first sample (a loaded machine may take a while) */
    $t = hrtime(true);
    while ($p->getLog()->getEventCount() < 1 && hrtime(true) - $t < 30e9) {}
    $p->stop();
    if ($p->getLog()->getEventCount() < 1) echo "no event in run $i\n";
}
echo "1e-12: ";
$p = new ExcimerProfiler;
$p->setPeriod(1e-12);
$p->start();
?>
--EXPECTF--
1e-12: 
Warning: ExcimerProfiler::start(): Unable to start timer with a value of zero duration and period in %s on line %d

--TEST--
tideways_xhprof's phpinfo() shows the rows of the original (Version, Clock Source: tsc or clock_gettime), which scripts read to tell how times are taken
--EXTENSIONS--
excimer
tideways_xhprof
--FILE--
<?php
ob_start();
phpinfo(INFO_MODULES);
$info = ob_get_clean();
$section = substr($info, strpos($info, "\ntideways_xhprof\n"));
var_dump(preg_match('/^Version => 5\.0\.4$/m', $section),
         preg_match('/^Clock Source => (tsc|clock_gettime)$/m', $section));
?>
--EXPECT--
int(1)
int(1)

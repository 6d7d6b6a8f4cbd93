--TEST--
excimer: the module loads under its own name, with its constants and INI defaults
--EXTENSIONS--
excimer
--FILE--
<?php
var_dump(extension_loaded('excimer'));
var_dump(is_string(phpversion('excimer')));
var_dump(EXCIMER_REAL, EXCIMER_CPU);
var_dump(ini_get('excimer.default_max_depth'));
?>
--EXPECT--
bool(true)
bool(true)
int(0)
int(1)
string(4) "1000"

--TEST--
excimer: the module loads under its own name, with its constants and INI defaults
--EXTENSIONS--
excimer
--FILE--
<?php
var_dump(extension_loaded('excimer'));
var_dump(is_string(phpversion('excimer')));
// a plain version at the API level implemented, as code for the original checks it
var_dump(version_compare(phpversion('excimer'), '1.2.5', '>='), preg_match('/^\d+\.\d+\.\d+$/', phpversion('excimer')));
ob_start(); phpinfo(INFO_MODULES); $info = ob_get_clean();
var_dump(str_contains($info, 'php-excimer-sampler (Arc Lamp, C edition)'));
var_dump(EXCIMER_REAL, EXCIMER_CPU);
var_dump(ini_get('excimer.default_max_depth'));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
int(1)
bool(true)
int(0)
int(1)
string(4) "1000"

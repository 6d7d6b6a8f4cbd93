--TEST--
Zero-code collection: the request's profiler timer is registered once, so nothing of it is left to touch after the profiler is freed at the end of the request (a use-after-free valgrind sees; with excimer.hprof_sample_rate the freed memory was reused and php-fpm workers crashed)
--EXTENSIONS--
excimer
--INI--
excimer.arclamp_target=udp://127.0.0.1:9
excimer.arclamp_period=0.001
excimer.arclamp_event_type=real
excimer.hprof_sample_rate=1
--FILE--
<?php
function busy() { $t = hrtime(true); while (hrtime(true) - $t < 20e6) { $x = md5("x"); } }
busy();
echo "done\n";
?>
--EXPECT--
done

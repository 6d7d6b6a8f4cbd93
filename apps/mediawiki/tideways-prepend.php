<?php
// The reference profile of the app tests (apps/test_mediawiki_hprof.py):
// tideways_xhprof 5.0.4 (Debian's php8.2-tideways, fetched into build/compare/
// by scripts/fetch-deb-module, never installed) profiles the request from this
// auto_prepend_file on, and writes its run, serialize()d as xhprof_lib reads
// it, into the directory named by the environment variable ARCLAMP_REFERENCE_RUNS.
tideways_xhprof_enable( TIDEWAYS_XHPROF_FLAGS_CPU | TIDEWAYS_XHPROF_FLAGS_MEMORY );
register_shutdown_function( static function () {
	$run = tideways_xhprof_disable();
	$path = sprintf( '%s/%d-%d.tideways.xhprof', getenv( 'ARCLAMP_REFERENCE_RUNS' ), getmypid(),
		hrtime( true ) );
	file_put_contents( $path, serialize( $run ) );
} );

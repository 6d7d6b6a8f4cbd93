<?php

/** @generate-class-entries */

/**
 * The API of PECL xhprof, module "xhprof" (src/xhprof_api.c), on Excimer's
 * hierarchical profiler. src/xhprof_arginfo.h is generated from this file by
 * scripts/gen-arginfo (php-src's build/gen_stub.php).
 */

/**
 * @var int
 * @cvalue XHPROF_FLAGS_NO_BUILTINS
 */
const XHPROF_FLAGS_NO_BUILTINS = UNKNOWN;
/**
 * @var int
 * @cvalue XHPROF_FLAGS_CPU
 */
const XHPROF_FLAGS_CPU = UNKNOWN;
/**
 * @var int
 * @cvalue XHPROF_FLAGS_MEMORY
 */
const XHPROF_FLAGS_MEMORY = UNKNOWN;

/**
 * Starts a hierarchical profile of this request. $options['ignored_functions']
 * (a name or a list of names) are transparent: their callees attach to their
 * caller.
 */
function xhprof_enable(int $flags = 0, array $options = []): void {}

/** The raw profile ("parent==>child" => metrics), or null when not enabled. */
function xhprof_disable(): ?array {}

/** Samples the stack every xhprof.sampling_interval µs. */
function xhprof_sample_enable(): void {}

/** The samples ("sec.usec" => "main()==>a==>b"), or null when not enabled. */
function xhprof_sample_disable(): ?array {}

<?php

/** @generate-class-entries */

/**
 * The API of tideways_xhprof, module "tideways_xhprof"
 * (src/tideways_xhprof_api.c), on Excimer's hierarchical profiler.
 * src/tideways_xhprof_arginfo.h is generated from this file by
 * scripts/gen-arginfo (php-src's build/gen_stub.php).
 */

/**
 * @var int
 * @cvalue TIDEWAYS_XHPROF_FLAGS_CPU
 */
const TIDEWAYS_XHPROF_FLAGS_CPU = UNKNOWN;
/**
 * @var int
 * @cvalue TIDEWAYS_XHPROF_FLAGS_MEMORY_MU
 */
const TIDEWAYS_XHPROF_FLAGS_MEMORY_MU = UNKNOWN;
/**
 * @var int
 * @cvalue TIDEWAYS_XHPROF_FLAGS_MEMORY_PMU
 */
const TIDEWAYS_XHPROF_FLAGS_MEMORY_PMU = UNKNOWN;
/**
 * @var int
 * @cvalue TIDEWAYS_XHPROF_FLAGS_MEMORY
 */
const TIDEWAYS_XHPROF_FLAGS_MEMORY = UNKNOWN;
/**
 * @var int
 * @cvalue TIDEWAYS_XHPROF_FLAGS_NO_BUILTINS
 */
const TIDEWAYS_XHPROF_FLAGS_NO_BUILTINS = UNKNOWN;
/**
 * @var int
 * @cvalue TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC
 */
const TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC = UNKNOWN;
/**
 * @var int
 * @cvalue TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC_AS_MU
 */
const TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC_AS_MU = UNKNOWN;

/** Starts a hierarchical profile of this request. */
function tideways_xhprof_enable(int $flags = 0): void {}

/** The raw profile ("parent==>child" => metrics); empty when never enabled. */
function tideways_xhprof_disable(): array {}

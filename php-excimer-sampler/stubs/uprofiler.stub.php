<?php

/** @generate-class-entries */

/**
 * The API of uprofiler, module "uprofiler" (src/uprofiler_api.c), on
 * Excimer's hierarchical profiler. src/uprofiler_arginfo.h is generated from
 * this file by scripts/gen-arginfo (php-src's build/gen_stub.php).
 */

/**
 * @var int
 * @cvalue UPROFILER_FLAGS_NO_BUILTINS
 */
const UPROFILER_FLAGS_NO_BUILTINS = UNKNOWN;
/**
 * @var int
 * @cvalue UPROFILER_FLAGS_CPU
 */
const UPROFILER_FLAGS_CPU = UNKNOWN;
/**
 * @var int
 * @cvalue UPROFILER_FLAGS_MEMORY
 */
const UPROFILER_FLAGS_MEMORY = UNKNOWN;
/**
 * @var int
 * @cvalue UPROFILER_FLAGS_FUNCTION_INFO
 */
const UPROFILER_FLAGS_FUNCTION_INFO = UNKNOWN;

/**
 * Starts a hierarchical profile of this request; false when it cannot.
 * @param int $flags
 * @param array $options
 */
function uprofiler_enable($flags = 0, $options = []): bool {}

/** The raw profile, or null when not enabled. */
function uprofiler_disable(): ?array {}

/** Samples the stack every uprofiler.sampling_interval µs. */
function uprofiler_sample_enable(): bool {}

/** The samples, or null when not enabled. */
function uprofiler_sample_disable(): ?array {}

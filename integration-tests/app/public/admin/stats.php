<?php
// The delivery counters of the worker that serves this request
// (excimer_arclamp_stats() counts per process, since it started).
// ?hold=S keeps the worker busy S seconds (at most 5) first, so that
// concurrent stats requests land on distinct workers. It leaves itself out
// of zero-code collection, so it never counts itself.
declare(strict_types=1);

if (function_exists('excimer_arclamp_skip_request')) {
    excimer_arclamp_skip_request();
}
if (function_exists('excimer_tiers_set_identity')) {
    excimer_tiers_set_identity('admin');
}

$hold = min(5.0, max(0.0, (float)($_GET['hold'] ?? 0)));
if ($hold > 0) {
    usleep((int)($hold * 1e6));
}
header('Content-Type: application/json');
echo json_encode([
    'pid' => getmypid(),
    'target' => (string)ini_get('excimer.arclamp_target'),
    // false: nothing of this request is collected (skipping again finds nothing)
    'collecting' => function_exists('excimer_arclamp_skip_request') && excimer_arclamp_skip_request(),
    'period' => (string)ini_get('excimer.arclamp_period'),
    'stats' => function_exists('excimer_arclamp_stats') ? excimer_arclamp_stats() : null,
    'tiers' => function_exists('excimer_tiers_status') ? excimer_tiers_status() : null,
    // identities whose tier aggregates the worker still holds (not yet sent)
    'tiers_held' => function_exists('excimer_tiers_stats') ? count(excimer_tiers_stats()) : 0,
]);

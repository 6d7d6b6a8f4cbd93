<?php
// The job runner's endpoint: runjob.php?token=T&seed=S runs one job queued
// by the request whose tiers token is T.
declare(strict_types=1);

require __DIR__ . '/../includes/bootstrap.php';

if (function_exists('excimer_tiers_set_identity')) {
    excimer_tiers_set_identity('jobrunner');
}
$hooks = new App\Core\HookRunner();
App\Core\ExtensionRegistry::loadAll($hooks);
$continued = function_exists('excimer_tiers_continue') && excimer_tiers_continue((string)($_GET['token'] ?? ''));
$queue = new App\Jobs\JobQueue($hooks);
$queue->push((int)($_GET['seed'] ?? 1));
$job = $queue->pop();
$ok = $job->run((int)($_GET['work'] ?? 300));
header('Content-Type: application/json');
echo json_encode(['type' => $job->getType(), 'ok' => $ok, 'continued' => $continued]);

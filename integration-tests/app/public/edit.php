<?php
// An edit: saves (queries the database) and queues a job for later, which
// a job runner (runjob.php, another process, maybe another host) runs. The
// job carries the request's tiers token, so the job's tier times count for
// "edit", the request that caused them.
declare(strict_types=1);

require __DIR__ . '/../includes/bootstrap.php';

if (function_exists('excimer_tiers_set_identity')) {
    excimer_tiers_set_identity('edit');
}
$seed = wfSeed((string)($_GET['title'] ?? 'Sandbox'));
$db = new App\Db\Database(300);
$db->query('SELECT * FROM page WHERE id % 5 = 1 ORDER BY len LIMIT 10', $seed);
header('Content-Type: application/json');
echo json_encode(['seed' => $seed,
                  'token' => function_exists('excimer_tiers_request_id') ? excimer_tiers_request_id() : '']);

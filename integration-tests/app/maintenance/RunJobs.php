<?php
// The CLI job runner: php RunJobs.php --jobs N --target URL [--period S]
//
// A long-running CLI process is not served by zero-code collection (that
// sends once, at the end of the process), so it profiles itself the way
// ArcLamp.php does: an ExcimerProfiler whose flush callback sends every 20
// samples with excimer_arclamp_send(), and what is left at the end. Its last
// output line is JSON: its jobs and excimer_arclamp_stats() after the last send.
declare(strict_types=1);

require __DIR__ . '/../includes/bootstrap.php';

$opts = getopt('', ['jobs:', 'target:', 'period:', 'work:']);
$jobs = (int)($opts['jobs'] ?? 10);
$target = (string)($opts['target'] ?? '');
$period = (float)($opts['period'] ?? 0.005);
$work = (int)($opts['work'] ?? 600);
$entry = realpath(__FILE__);

$send = static function (ExcimerLog $log) use ($target, $entry): void {
    $collapsed = $log->formatCollapsed();
    if ($collapsed !== '' && $target !== '') {
        excimer_arclamp_send($target, $collapsed, $entry);
    }
};
$prof = new ExcimerProfiler();
$prof->setPeriod($period);
$prof->setEventType(EXCIMER_CPU);
$prof->setFlushCallback($send, 20);
$prof->start();

$hooks = new App\Core\HookRunner();
App\Core\ExtensionRegistry::loadAll($hooks);
$queue = new App\Jobs\JobQueue($hooks);
for ($i = 0; $i < $jobs; $i++) {
    $queue->push(wfSeed("job $i"));
}
$done = [];
while (($job = $queue->pop()) !== null) {
    $ok = $job->run($work);
    $done[$job->getType()] = ($done[$job->getType()] ?? 0) + ($ok ? 1 : 0);
}

$prof->stop();
$send($prof->flush());
echo json_encode(['pid' => getmypid(), 'jobs' => $done, 'stats' => excimer_arclamp_stats()]), "\n";

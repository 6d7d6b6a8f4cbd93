<?php
declare(strict_types=1);

namespace App\Jobs;

use App\Core\HookRunner;

/** Base of the jobs: run the job's hook, then its own work. */
abstract class HookJob implements Job
{
    public function __construct(protected HookRunner $hooks, protected int $seed)
    {
    }

    public function run(int $n): bool
    {
        $this->hooks->run('JobRun', $n, $this->seed, 3);
        return $this->doRun($n) >= 0;
    }

    abstract protected function doRun(int $n): int;
}

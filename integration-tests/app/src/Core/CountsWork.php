<?php
declare(strict_types=1);

namespace App\Core;

/** Shared by the handlers: bookkeeping of the work they did. */
trait CountsWork
{
    private int $work = 0;

    protected function account(int $units): int
    {
        $this->work += $units;
        return $units;
    }

    public function workDone(): int
    {
        return $this->work;
    }
}

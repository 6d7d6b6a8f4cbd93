<?php
declare(strict_types=1);

namespace App\Jobs;

interface Job
{
    public function getType(): string;

    public function run(int $n): bool;
}

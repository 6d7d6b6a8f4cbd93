<?php
declare(strict_types=1);

namespace App\Core\Contracts;

interface Service
{
    /** Does about $n units of work; returns a checksum. */
    public function run(int $n): int;
}

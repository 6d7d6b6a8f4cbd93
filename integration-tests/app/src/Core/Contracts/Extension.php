<?php
declare(strict_types=1);

namespace App\Core\Contracts;

use App\Core\HookRunner;

/** A module: registers its handlers with the hooks. */
interface Extension
{
    public function register(HookRunner $hooks): void;
}

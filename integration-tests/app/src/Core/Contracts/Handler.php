<?php
declare(strict_types=1);

namespace App\Core\Contracts;

use App\Core\Request;
use App\Core\Response;

interface Handler
{
    public function handle(Request $req): Response;
}

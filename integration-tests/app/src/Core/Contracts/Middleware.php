<?php
declare(strict_types=1);

namespace App\Core\Contracts;

use App\Core\Request;
use App\Core\Response;

interface Middleware
{
    public function process(Request $req, \Closure $next): Response;
}

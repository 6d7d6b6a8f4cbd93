<?php
declare(strict_types=1);

namespace App\Core\Middleware;

use App\Core\Contracts\Middleware;
use App\Core\Request;
use App\Core\Response;

final class Timing implements Middleware
{
    public function process(Request $req, \Closure $next): Response
    {
        $t = hrtime(true);
        $res = $next($req);
        $res->headers['X-Backend-Time'] = (string)intdiv(hrtime(true) - $t, 1000);
        return $res;
    }
}

<?php
declare(strict_types=1);

namespace App\Core\Middleware;

use App\Core\Contracts\Middleware;
use App\Core\Request;
use App\Core\Response;

final class Session implements Middleware
{
    public function process(Request $req, \Closure $next): Response
    {
        $data = ['user' => $req->attributes['user'] ?? '', 'seen' => range(1, 64)];
        $blob = serialize($data);
        $req->attributes['session'] = unserialize($blob);
        return $next($req);
    }
}

<?php
declare(strict_types=1);

namespace App\Core\Middleware;

use App\Core\Contracts\Middleware;
use App\Core\Request;
use App\Core\Response;

final class Auth implements Middleware
{
    public function process(Request $req, \Closure $next): Response
    {
        $token = $req->get('token', 'anonymous');
        $h = $token;
        for ($i = 0; $i < 200; $i++) {
            $h = hash('sha256', $h . $i);
        }
        $req->attributes['user'] = substr($h, 0, 12);
        return $next($req);
    }
}

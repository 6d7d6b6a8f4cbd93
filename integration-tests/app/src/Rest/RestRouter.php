<?php
declare(strict_types=1);

namespace App\Rest;

use App\Core\Container;
use App\Core\Router;

/** rest.php/v1/page/{title}, rest.php/v1/search/{term}, rest.php/v1/page/{title}/history */
final class RestRouter
{
    public static function routes(Router $r, Container $c): void
    {
        $r->add('/v1/page/{title}', static fn($req) => (new PageHandler($c))->handle($req));
        $r->add('/v1/page/{title}/history', static fn($req) => (new HistoryHandler($c))->handle($req));
        $r->add('/v1/search/{term}', static fn($req) => (new SearchHandler($c))->handle($req));
    }
}

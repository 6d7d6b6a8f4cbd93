<?php
declare(strict_types=1);

namespace App\Rest;

use App\Api\ApiSearch;
use App\Core\Container;
use App\Core\Contracts\Handler;
use App\Core\Request;
use App\Core\Response;

final class SearchHandler implements Handler
{
    public function __construct(private Container $c)
    {
    }

    public function handle(Request $req): Response
    {
        $res = (new ApiSearch($this->c))->execute(['search' => $req->attributes['term']], $req->budget, $req->seed());
        return Response::json(['pages' => $res['search']]);
    }
}

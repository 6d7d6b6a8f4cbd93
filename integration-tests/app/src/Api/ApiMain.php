<?php
declare(strict_types=1);

namespace App\Api;

use App\Core\Container;
use App\Core\Contracts\Handler;
use App\Core\Request;
use App\Core\Response;

/** api.php?action=query|parse|search */
final class ApiMain implements Handler
{
    private const MODULES = ['query' => ApiQuery::class, 'parse' => ApiParse::class, 'search' => ApiSearch::class];

    public function __construct(private Container $c)
    {
    }

    public function handle(Request $req): Response
    {
        $action = $req->get('action', 'query');
        $class = self::MODULES[$action] ?? null;
        if ($class === null) {
            return Response::json(['error' => ['code' => 'badvalue', 'info' => "Unrecognized action: $action"]], 400);
        }
        $module = new $class($this->c);
        $result = $module->execute($req->query, $req->budget, $req->seed());
        return Response::json(['batchcomplete' => true] + $result);
    }
}

<?php
declare(strict_types=1);

namespace App\Rest;

use App\Core\Container;
use App\Core\Contracts\Handler;
use App\Core\Request;
use App\Core\Response;

final class HistoryHandler implements Handler
{
    public function __construct(private Container $c)
    {
    }

    public function handle(Request $req): Response
    {
        $revs = $this->c->get('db')->query('SELECT * FROM revision WHERE id % 11 = 4 ORDER BY touched LIMIT 100', $req->seed());
        $diffs = [];
        for ($i = 1; $i < count($revs); $i++) {
            $diffs[] = levenshtein($revs[$i - 1]['title'], $revs[$i]['title']);
        }
        $this->c->get('hooks')->run('RestResponse', $req->budget, $req->seed() + 3, 6);
        return Response::json(['revisions' => $revs, 'diffs' => $diffs]);
    }
}

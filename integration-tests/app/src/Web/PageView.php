<?php
declare(strict_types=1);

namespace App\Web;

use App\Core\Container;
use App\Core\Contracts\Handler;
use App\Core\CountsWork;
use App\Core\Request;
use App\Core\Response;

/** index.php?title=X: parse the page, query the database, render the skin. */
final class PageView implements Handler
{
    use CountsWork;

    public function __construct(private Container $c)
    {
    }

    public function handle(Request $req): Response
    {
        $title = $req->get('title', 'Main Page');
        $seed = $req->seed();
        $n = $req->budget;
        $html = $this->c->get('parser')->parse($title, $this->account($n), $seed);
        $db = $this->c->get('db');
        $rows = $this->c->get('cache')->get("revisions:$seed",
            static fn(): array => $db->query('SELECT * FROM revision WHERE id % 7 = 3 ORDER BY len LIMIT 20', $seed));
        $this->c->get('hooks')->run('PageRender', $n, $seed, 6);
        return new Response((new Skin())->render($title, $html, $rows));
    }
}

<?php
declare(strict_types=1);

namespace App\Rest;

use App\Core\Container;
use App\Core\Contracts\Handler;
use App\Core\Request;
use App\Core\Response;

final class PageHandler implements Handler
{
    public function __construct(private Container $c)
    {
    }

    public function handle(Request $req): Response
    {
        $title = urldecode($req->attributes['title']);
        $html = $this->c->get('parser')->parse($title, $req->budget, $req->seed());
        $this->c->get('hooks')->run('RestResponse', $req->budget, $req->seed(), 4);
        return Response::json(['title' => $title, 'html' => $html, 'etag' => md5($html)]);
    }
}

<?php
declare(strict_types=1);

namespace App\Core;

final class Router
{
    private array $routes = [];

    public function add(string $pattern, callable $handler): void
    {
        $re = '#^' . preg_replace('#\{(\w+)\}#', '(?P<$1>[^/]+)', $pattern) . '$#';
        $this->routes[] = [$re, $handler];
    }

    public function dispatch(Request $req): Response
    {
        foreach ($this->routes as [$re, $handler]) {
            if (preg_match($re, $req->path, $m)) {
                $req->attributes = array_filter($m, 'is_string', ARRAY_FILTER_USE_KEY);
                return $handler($req);
            }
        }
        return new Response('not found', 404);
    }
}

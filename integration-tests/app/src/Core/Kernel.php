<?php
declare(strict_types=1);

namespace App\Core;

use App\Core\Contracts\Middleware;

/** Builds the container, the middleware pipeline and runs one request. */
final class Kernel
{
    private Container $c;
    /** @var Middleware[] */
    private array $middleware;

    public function __construct(\Closure $routes)
    {
        $this->c = new Container();
        $this->c->set('hooks', static function (): HookRunner {
            $hooks = new HookRunner();
            ExtensionRegistry::loadAll($hooks);
            return $hooks;
        });
        $this->c->set('db', static fn(): \App\Db\Database => new \App\Db\Database(600));
        $this->c->set('cache', static fn(): ObjectCache => new ObjectCache());
        $this->c->set('parser', static fn(Container $c): \App\Parser\Parser => new \App\Parser\Parser($c->get('hooks')));
        $this->c->set('router', function (Container $c) use ($routes): Router {
            $r = new Router();
            $routes($r, $c);
            return $r;
        });
        $this->middleware = [new \App\Core\Middleware\Timing(), new \App\Core\Middleware\Auth(), new \App\Core\Middleware\Session()];
    }

    public function handle(Request $req): Response
    {
        $router = $this->c->get('router');
        $pipeline = array_reduce(
            array_reverse($this->middleware),
            static fn(\Closure $next, Middleware $m): \Closure => static fn(Request $r): Response => $m->process($r, $next),
            static fn(Request $r): Response => $router->dispatch($r)
        );
        return $pipeline($req);
    }

    public static function main(string $entry, int $budget, \Closure $routes): void
    {
        // the kind of request, for request tiers: index, rest, api:<action>
        if (function_exists('excimer_tiers_set_identity')) {
            excimer_tiers_set_identity($entry === 'api' ? 'api:' . preg_replace('/[^a-z]/', '', (string)($_GET['action'] ?? '')) : $entry);
        }
        $kernel = new self($routes);
        $kernel->handle(Request::fromGlobals($entry, $budget))->send();
    }
}

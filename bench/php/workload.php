<?php
// A framework-like request: routing, a service container, closures,
// recursion over a tree, string building and array work, about 50 ms.
// With PROFILE_PERIOD set, an ExcimerProfiler samples it at that period
// (and the log is formatted at the end, as Arc Lamp's flush does).
// Usage: php workload.php [REPEAT] ; env PROFILE_PERIOD=0.01
namespace App\Http;

interface Middleware { public function handle(array $req, \Closure $next): array; }

final class Container {
    private array $factories = [];
    private array $instances = [];
    public function set(string $id, \Closure $f): void { $this->factories[$id] = $f; }
    public function get(string $id): object {
        return $this->instances[$id] ??= ($this->factories[$id])($this);
    }
}

final class Router {
    private array $routes = [];
    public function add(string $method, string $pattern, callable $handler): void {
        $this->routes[] = [$method, '#^' . preg_replace('#\{(\w+)\}#', '(?P<$1>[^/]+)', $pattern) . '$#', $handler];
    }
    public function dispatch(string $method, string $path): array {
        foreach ($this->routes as [$m, $re, $h]) {
            if ($m === $method && preg_match($re, $path, $mm)) {
                return $h(array_filter($mm, 'is_string', ARRAY_FILTER_USE_KEY));
            }
        }
        return ['status' => 404];
    }
}

final class Timing implements Middleware {
    public function handle(array $req, \Closure $next): array { $r = $next($req); $r['t'] = 1; return $r; }
}
final class Auth implements Middleware {
    public function handle(array $req, \Closure $next): array {
        $req['user'] = hash('sha256', $req['path'] . 'secret');
        return $next($req);
    }
}

final class PageRenderer {
    public function render(array $node, int $depth = 0): string {
        $html = '<div class="d' . $depth . '">' . htmlspecialchars($node['title']) . '</div>';
        foreach ($node['children'] as $child) {
            $html .= $this->render($child, $depth + 1);
        }
        return $html;
    }
}

function build_tree(int $depth, int $fanout, string $prefix = 'n'): array {
    $children = [];
    if ($depth > 0) {
        for ($i = 0; $i < $fanout; $i++) {
            $children[] = build_tree($depth - 1, $fanout, $prefix . $i);
        }
    }
    return ['title' => "Section $prefix <&>", 'children' => $children];
}

function handle_request(Container $c, string $path): int {
    $router = $c->get('router');
    $pipeline = array_reduce(array_reverse([new Timing(), new Auth()]),
        fn($next, Middleware $m) => fn($req) => $m->handle($req, $next),
        fn($req) => $router->dispatch('GET', $req['path']));
    $res = $pipeline(['path' => $path]);
    return strlen($res['body'] ?? '') + count($res);
}

$c = new Container();
$c->set('renderer', fn() => new PageRenderer());
$c->set('router', function (Container $c) {
    $r = new Router();
    $r->add('GET', '/wiki/{title}', function (array $p) use ($c) {
        $tree = build_tree(5, 4, $p['title']);
        $body = $c->get('renderer')->render($tree);
        $words = str_word_count(strip_tags($body), 1);
        usort($words, fn($a, $b) => strcmp($a, $b));
        return ['status' => 200, 'body' => $body . implode(',', array_slice(array_unique($words), 0, 50))];
    });
    return $r;
});

// Timed: starting, sampling, stopping and formatting, as a request pays them.
$t0 = hrtime(true);
$period = (float)(getenv('PROFILE_PERIOD') ?: 0);
if ($period > 0) {
    $prof = new \ExcimerProfiler();
    $prof->setPeriod($period);
    $prof->start();
}
$repeat = (int)($argv[1] ?? 40);
$sum = 0;
for ($i = 0; $i < $repeat; $i++) {
    $sum += handle_request($c, '/wiki/Page_' . ($i % 7));
}
if ($period > 0) {
    $prof->stop();
    $collapsed = $prof->getLog()->formatCollapsed();
}
fprintf(STDERR, "elapsed_ms=%.3f\n", (hrtime(true) - $t0) / 1e6);
echo $sum, "\n";

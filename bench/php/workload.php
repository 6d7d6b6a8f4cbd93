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

// One timed batch of requests: starting, sampling, stopping and formatting,
// as a request pays them. Returns [wall ms, process CPU ms]; the CPU time is
// the whole process's (getrusage), so it includes a timer helper thread.
function timed_batch(Container $c, int $repeat, float $period): array {
    $cpu0 = cpu_ms();
    $t0 = hrtime(true);
    if ($period > 0) {
        $prof = new \ExcimerProfiler();
        $prof->setPeriod($period);
        $prof->start();
    }
    $sum = 0;
    for ($i = 0; $i < $repeat; $i++) {
        $sum += handle_request($c, '/wiki/Page_' . ($i % 7));
    }
    if ($period > 0) {
        $prof->stop();
        $sum += strlen($prof->getLog()->formatCollapsed());
    }
    $GLOBALS['sink'] = ($GLOBALS['sink'] ?? 0) + $sum;
    return [(hrtime(true) - $t0) / 1e6, cpu_ms() - $cpu0];
}

function cpu_ms(): float {
    $u = getrusage();
    return ($u['ru_utime.tv_sec'] + $u['ru_stime.tv_sec']) * 1e3
         + ($u['ru_utime.tv_usec'] + $u['ru_stime.tv_usec']) / 1e3;
}

function median(array $v): float {
    sort($v);
    $n = count($v);
    return $n % 2 ? $v[intdiv($n, 2)] : ($v[$n / 2 - 1] + $v[$n / 2]) / 2;
}

$repeat = (int)($argv[1] ?? 40);
$period = (float)(getenv('PROFILE_PERIOD') ?: 0);
$pairs = (int)(getenv('PAIRED') ?: 0);
if ($pairs === 0) {
    [$ms] = timed_batch($c, $repeat, $period);
    fprintf(STDERR, "elapsed_ms=%.3f\n", $ms);
    echo $GLOBALS['sink'], "\n";
    exit;
}

// PAIRED=N: N pairs of batches in this one process, one unprofiled and one
// profiled at PROFILE_PERIOD, in alternating order (so drift within the run
// cancels). Prints the medians of the per-pair ratios profiled/unprofiled.
timed_batch($c, $repeat, 0); // warm-up: caches, the allocator, the JIT-less VM
$wall = $cpu = [];
for ($p = 0; $p < $pairs; $p++) {
    if ($p % 2) {
        $on = timed_batch($c, $repeat, $period);
        $off = timed_batch($c, $repeat, 0);
    } else {
        $off = timed_batch($c, $repeat, 0);
        $on = timed_batch($c, $repeat, $period);
    }
    $wall[] = $on[0] / $off[0];
    if ($off[1] > 0) {
        $cpu[] = $on[1] / $off[1];
    }
}
fprintf(STDERR, "wall_ratio=%.4f cpu_ratio=%.4f pairs=%d\n", median($wall), median($cpu), $pairs);

<?php
// One request of the combinations scenario (scenario 11 of test_fleet.py):
// every public/combo-*.php (one entry point per combination, written at
// test time, so each combination's samples, runs and tier identity are
// apart) includes this. A page view through the application's kernel,
// then what real code also does and every profiler has to survive:
// eval()'d code, a Fiber suspended and resumed, an exception unwinding
// several frames.
//
// ?api=xhprof|tideways_xhprof|uprofiler: the request profiles itself
// through that module's API, enabled first thing and disabled last, as
// XHGui's collector does; the answer carries the run's inclusive wall time
// per key, so the test checks it. Answers JSON: the worker's pid, the
// entry point, the page's size and whether it shows its title, the extra
// work's result, the settings the worker runs with and the run (null
// without ?api).
declare(strict_types=1);

function combination_enable(string $api): ?string
{
    switch ($api) {
        case '':
            return null;
        case 'xhprof':
            xhprof_enable(XHPROF_FLAGS_CPU | XHPROF_FLAGS_MEMORY);
            return 'xhprof_disable';
        case 'tideways_xhprof':
            tideways_xhprof_enable(TIDEWAYS_XHPROF_FLAGS_CPU | TIDEWAYS_XHPROF_FLAGS_MEMORY);
            return 'tideways_xhprof_disable';
        case 'uprofiler':
            uprofiler_enable(UPROFILER_FLAGS_CPU | UPROFILER_FLAGS_MEMORY);
            return 'uprofiler_disable';
    }
    throw new InvalidArgumentException("no such API: $api");
}

function combination_unwind(int $depth): int
{
    if ($depth === 0) {
        throw new RuntimeException('unwound');
    }
    return 1 + combination_unwind($depth - 1);
}

function combination_extras(): int
{
    $n = eval('return array_sum(array_map(static fn(int $x): int => $x * $x, range(1, 20)));');
    $fiber = new Fiber(static function (int $start): int {
        $got = Fiber::suspend($start * 2);
        return $got + 1;
    });
    $n += $fiber->start(21);
    $fiber->resume(5);
    $n += $fiber->getReturn();
    try {
        $n += combination_unwind(6);
    } catch (RuntimeException $e) {
        $n += strlen($e->getMessage());
    }
    return $n;   // 2870 + 42 + 6 + 7
}

$disable = combination_enable((string)($_GET['api'] ?? ''));

require __DIR__ . '/bootstrap.php';

$entry = basename((string)$_SERVER['SCRIPT_FILENAME'], '.php');
$title = (string)($_GET['title'] ?? 'Main Page');
ob_start();
App\Core\Kernel::main($entry, (int)($_GET['work'] ?? 150),
    static function (App\Core\Router $r, App\Core\Container $c): void {
        $r->add('/', static fn(App\Core\Request $req) => (new App\Web\PageView($c))->handle($req));
    });
$page = (string)ob_get_clean();
$extra = combination_extras();

$run = $disable !== null ? $disable() : null;
// Read through a callback: opcache's optimizer replaces ini_get('x') of a
// PHP_INI_SYSTEM setting by its value when it compiles the script, and the
// pools of one master share the compiled script (the first pool's values
// would be every pool's).
$keys = ['excimer.arclamp_target', 'excimer.hprof_sample_rate', 'excimer.tiers',
         'excimer.tiers_control'];
$ini = array_combine($keys, array_map(static fn(string $k): string => (string)ini_get($k), $keys));
header('Content-Type: application/json');
echo json_encode([
    'pid' => getmypid(),
    'entry' => $entry,
    'page_bytes' => strlen($page),
    'title_shown' => str_contains($page, '<title>' . wfEscapeHtml($title) . '</title>'),
    'extra' => $extra,
    // what this worker runs with, as the combination's pool and master set it
    'config' => [
        'sampler' => $ini['excimer.arclamp_target'] !== '',
        'hprof_sample_rate' => $ini['excimer.hprof_sample_rate'],
        'modules' => array_values(array_filter(['xhprof', 'tideways_xhprof', 'uprofiler'],
                                               'extension_loaded')),
        'tiers' => $ini['excimer.tiers'] !== '',
        'tiers_control' => $ini['excimer.tiers_control'] !== '',
        'opcache' => function_exists('opcache_get_status')
                     && (opcache_get_status(false)['opcache_enabled'] ?? false),
    ],
    'run' => is_array($run) ? array_map(static fn(array $m): int => (int)$m['wt'], $run) : null,
], JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);

<?php
/* One request of the combinations test (test_combinations.py): real code
 * not written here — Debian's php-parser (nikic/php-parser) autoloads its
 * classes, parses one of its own files, resolves its names, walks it with a
 * closure visitor and prints it back — plus what real applications also do:
 * eval(), closures printed alike calling each other, a trait, a Fiber, an
 * exception through several frames.
 *
 * Environment: COMBO_API = xhprof | tideways_xhprof | uprofiler | "" (a
 * hierarchical run through that module's API for this request), COMBO_STATE
 * = a directory for the request counter, COMBO_SWITCH = the tiers control
 * file to turn off after request 1 and on again after request 2 (each write
 * then waits out the extension's once-a-second look at the file).
 * Prints "request N ok" and, for an API run, "run ok ARCS" or what failed. */
require '/usr/share/php/PhpParser/autoload.php';

use PhpParser\Node;
use PhpParser\NodeTraverser;
use PhpParser\NodeVisitor\NameResolver;
use PhpParser\NodeVisitorAbstract;
use PhpParser\ParserFactory;
use PhpParser\PrettyPrinter\Standard;

trait Counts { public function bump() { return ++$this->n; } }
final class Counter { use Counts; public int $n = 0; }

function request_number(): int
{
    $file = getenv('COMBO_STATE') . '/requests';
    $n = (int)@file_get_contents($file) + 1;
    file_put_contents($file, (string)$n);
    return $n;
}

function api_calls(string $api): array
{
    return match ($api) {
        'xhprof' => [fn() => xhprof_enable(XHPROF_FLAGS_CPU | XHPROF_FLAGS_MEMORY), 'xhprof_disable'],
        'tideways_xhprof' => [fn() => tideways_xhprof_enable(TIDEWAYS_XHPROF_FLAGS_CPU
                                      | TIDEWAYS_XHPROF_FLAGS_MEMORY), 'tideways_xhprof_disable'],
        'uprofiler' => [fn() => uprofiler_enable(UPROFILER_FLAGS_CPU | UPROFILER_FLAGS_MEMORY),
                        'uprofiler_disable'],
    };
}

/* Symbols whose inclusive wall time (XHProf's tools: the sum over arcs into
 * it) is above main()'s. */
function over_main(array $run): array
{
    $inclusive = [];
    foreach ($run as $key => $v) {
        $at = strpos($key, '==>');
        $child = $at === false ? $key : substr($key, $at + 3);
        $inclusive[$child] = ($inclusive[$child] ?? 0) + $v['wt'];
    }
    return array_filter($inclusive, fn($wt) => $wt > ($run['main()']['wt'] ?? 0));
}

function parse_and_print(string $file): int
{
    $parser = (new ParserFactory)->create(ParserFactory::PREFER_PHP7);
    $ast = $parser->parse(file_get_contents($file));
    $traverser = new NodeTraverser;
    $traverser->addVisitor(new NameResolver);
    $counter = new Counter;
    $traverser->addVisitor(new class($counter) extends NodeVisitorAbstract {
        public function __construct(private Counter $c) {}
        public function enterNode(Node $node) { $this->c->bump(); return null; }
    });
    $ast = $traverser->traverse($ast);
    $code = (new Standard)->prettyPrintFile($ast);
    return $counter->n + (preg_match_all('/function/', $code) > 0 ? 0 : 1);
}

function nested_closures(int $depth): int
{
    $f = function (int $d) use (&$f) { return $d <= 0 ? 0 : 1 + $f($d - 1); };
    $g = function (int $d) use ($f) { return $f($d); };
    return $g($depth);
}

function thrower(int $n): void
{
    if ($n === 0)
        throw new RuntimeException('down here');
    thrower($n - 1);
}

$n = request_number();
$api = (string)getenv('COMBO_API');
if ($api !== '')
    [$enable, $disable] = api_calls($api);
if ($api !== '')
    $enable();

$nodes = parse_and_print('/usr/share/php/PhpParser/NodeTraverser.php');
$nodes += nested_closures(20);
$nodes += eval('return array_sum([1, 2, 3]);');
$fiber = new Fiber(function () { Fiber::suspend(nested_closures(3)); return 1; });
$nodes += $fiber->start() + (int)$fiber->resume();
try { thrower(5); } catch (RuntimeException $e) { $nodes++; }

if ($api !== '') {
    $run = $disable();
    $over = over_main($run);
    echo $over ? 'run over main(): ' . json_encode($over) : 'run ok ' . count($run), "\n";
}

$switch = (string)getenv('COMBO_SWITCH');
if ($switch !== '' && $n <= 2) {
    file_put_contents($switch, $n === 1 ? "off\n" : "on\n");
    usleep(1100000); // the extension looks at the file at most once a second
}
echo "request $n ok $nodes\n";

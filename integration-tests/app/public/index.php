<?php
// Page views: index.php?title=Some_Page
declare(strict_types=1);

require __DIR__ . '/../includes/bootstrap.php';

App\Core\Kernel::main('index', (int)($_GET['work'] ?? 150),
    static function (App\Core\Router $r, App\Core\Container $c): void {
        $r->add('/', static fn(App\Core\Request $req) => (new App\Web\PageView($c))->handle($req));
    });

<?php
// The action API: api.php?action=query|parse|search
declare(strict_types=1);

require __DIR__ . '/../includes/bootstrap.php';

App\Core\Kernel::main('api', (int)($_GET['work'] ?? 150),
    static function (App\Core\Router $r, App\Core\Container $c): void {
        $r->add('/', static fn(App\Core\Request $req) => (new App\Api\ApiMain($c))->handle($req));
    });

<?php
// The REST API: rest.php/v1/page/{title}, .../history, rest.php/v1/search/{term}
declare(strict_types=1);

require __DIR__ . '/../includes/bootstrap.php';

App\Core\Kernel::main('rest', (int)($_GET['work'] ?? 150), App\Rest\RestRouter::routes(...));

<?php
// Bootstrap shared by every entry point: the autoloader, the global
// functions and each module's functions file (functions are not autoloaded,
// so they are included), then the extensions registered with the hooks.
declare(strict_types=1);

define('APP_ROOT', dirname(__DIR__));

require_once APP_ROOT . '/includes/Autoloader.php';
require_once APP_ROOT . '/includes/GlobalFunctions.php';

App\Autoloader::register(APP_ROOT . '/src', 'App\\');
foreach (glob(APP_ROOT . '/includes/functions/*.php') ?: [] as $file) {
    require_once $file;
}

<?php
declare(strict_types=1);

namespace App\Core;

use App\Core\Contracts\Extension;

/** Finds the modules (src/Modules/ModNN/Extension.php) and registers them. */
final class ExtensionRegistry
{
    public static function loadAll(HookRunner $hooks): int
    {
        $n = 0;
        foreach (glob(APP_ROOT . '/src/Modules/*/Extension.php') ?: [] as $file) {
            $class = 'App\\Modules\\' . basename(dirname($file)) . '\\Extension';
            $ext = new $class();
            if ($ext instanceof Extension) {
                $ext->register($hooks);
                $n++;
            }
        }
        return $n;
    }
}

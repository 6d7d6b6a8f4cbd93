<?php
declare(strict_types=1);

namespace App;

/** PSR-4: App\Foo\Bar lives in src/Foo/Bar.php. */
final class Autoloader
{
    private static array $prefixes = [];
    public static int $loaded = 0;

    public static function register(string $dir, string $prefix): void
    {
        self::$prefixes[$prefix] = rtrim($dir, '/') . '/';
        spl_autoload_register([self::class, 'load']);
    }

    public static function load(string $class): void
    {
        foreach (self::$prefixes as $prefix => $dir) {
            if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
                continue;
            }
            $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
                self::$loaded++;
                return;
            }
        }
    }
}

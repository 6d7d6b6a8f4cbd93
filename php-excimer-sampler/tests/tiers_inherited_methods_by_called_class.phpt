--TEST--
Request tiers: Class::method names the method as called on that class, also when inherited from a parent loaded before or after it
--EXTENSIONS--
excimer
--INI--
excimer.tiers="job=Jobs\Refresh::run, job=Jobs\Purge::run, find=Repo::find"
--FILE--
<?php
require __DIR__ . '/tiers_helpers.inc';
require_once __DIR__ . '/tempdir.inc';
$dir = private_temp_dir('excimer-tiers');
// Autoloaded the way applications load classes: a subclass's file is
// compiled before its parent's (the parent is loaded while the subclass is
// being declared).
@mkdir("$dir/Jobs");
file_put_contents("$dir/Jobs/Base.php", '<?php namespace Jobs;
abstract class Base { function run() { usleep(300); return static::class; } }');
foreach (['Refresh', 'Purge', 'Index'] as $c) {
    file_put_contents("$dir/Jobs/$c.php", "<?php namespace Jobs; final class $c extends Base {}");
}
spl_autoload_register(function ($class) use ($dir) {
    $f = "$dir/" . str_replace('\\', '/', $class) . '.php';
    if (is_file($f)) require $f;
});
class Repo { static function find($id) { return $id; } }
class CachedRepo extends Repo {}

foreach (['Jobs\Refresh', 'Jobs\Index', 'Jobs\Purge', 'Jobs\Refresh', 'Jobs\Index'] as $c) {
    echo (new $c)->run(), "\n";
}
Repo::find(1);
CachedRepo::find(2);   // CachedRepo is-a Repo: counted
print_r(tier_calls());
?>
--EXPECT--
Jobs\Refresh
Jobs\Index
Jobs\Purge
Jobs\Refresh
Jobs\Index
Array
(
    [tiers_inherited_methods_by_called_class/find] => 2
    [tiers_inherited_methods_by_called_class/job] => 3
)

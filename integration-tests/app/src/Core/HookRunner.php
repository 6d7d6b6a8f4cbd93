<?php
declare(strict_types=1);

namespace App\Core;

/** Named hooks with handlers (closures registered by the modules). */
final class HookRunner
{
    private array $handlers = [];

    public function on(string $hook, callable $handler): void
    {
        $this->handlers[$hook][] = $handler;
    }

    public function count(string $hook): int
    {
        return count($this->handlers[$hook] ?? []);
    }

    /** Runs at most $limit handlers of $hook, chosen from $seed, with $n units each. */
    public function run(string $hook, int $n, int $seed, int $limit = 4): int
    {
        $list = $this->handlers[$hook] ?? [];
        if (!$list) {
            return 0;
        }
        $acc = 0;
        $count = count($list);
        for ($i = 0; $i < min($limit, $count); $i++) {
            $acc += ($list[($seed + $i * 7) % $count])($n * 3, $seed + $i);
        }
        return $acc;
    }
}

<?php
declare(strict_types=1);

namespace App\Api;

use App\Core\Container;

abstract class ApiModule
{
    public function __construct(protected Container $c)
    {
    }

    abstract public function execute(array $params, int $n, int $seed): array;

    protected function hooks(string $hook, int $n, int $seed): int
    {
        return $this->c->get('hooks')->run($hook, $n, $seed, 5);
    }
}

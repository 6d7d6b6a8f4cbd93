<?php
declare(strict_types=1);

namespace App\Core;

/** A per-request object cache: the value of a key is computed once. */
final class ObjectCache
{
    private array $data = [];

    public function get(string $key, \Closure $compute): mixed
    {
        if (!array_key_exists($key, $this->data)) {
            $this->data[$key] = $compute();
        }
        return $this->data[$key];
    }
}

<?php
declare(strict_types=1);

namespace App\Core;

final class Request
{
    public array $attributes = [];

    public function __construct(
        public readonly string $entry,
        public readonly string $path,
        public readonly array $query,
        public readonly int $budget,
    ) {
    }

    public static function fromGlobals(string $entry, int $budget): self
    {
        $path = $_SERVER['PATH_INFO'] ?? '';
        return new self($entry, $path === '' ? '/' : $path, $_GET, $budget);
    }

    public function get(string $key, string $default = ''): string
    {
        $v = $this->query[$key] ?? $default;
        return is_string($v) ? $v : $default;
    }

    public function seed(): int
    {
        return wfSeed($this->entry . $this->path . http_build_query($this->query));
    }
}

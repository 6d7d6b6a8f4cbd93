<?php
declare(strict_types=1);

namespace App\Api;

final class ApiParse extends ApiModule
{
    public function execute(array $params, int $n, int $seed): array
    {
        $html = $this->c->get('parser')->parse($params['page'] ?? 'Sandbox', $n, $seed);
        return ['parse' => ['text' => $html, 'hooks' => $this->hooks('ApiParse', $n >> 1, $seed)]];
    }
}

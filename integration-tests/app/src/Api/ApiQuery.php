<?php
declare(strict_types=1);

namespace App\Api;

final class ApiQuery extends ApiModule
{
    public function execute(array $params, int $n, int $seed): array
    {
        $pages = $this->c->get('db')->query('SELECT * FROM page WHERE id % 5 = 1 ORDER BY touched LIMIT 50', $seed);
        return ['query' => ['pages' => $pages, 'hooks' => $this->hooks('ApiQuery', $n, $seed)]];
    }
}

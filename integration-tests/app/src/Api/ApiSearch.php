<?php
declare(strict_types=1);

namespace App\Api;

final class ApiSearch extends ApiModule
{
    public function execute(array $params, int $n, int $seed): array
    {
        $term = strtolower($params['search'] ?? 'page');
        $hits = $this->c->get('db')->select('page',
            static fn(array $r): bool => str_contains(strtolower($r['title']), $term) && $r['len'] % 3 === $seed % 3,
            'len', 20);
        $scored = array_map(static fn(array $r): array => $r + ['score' => similar_text($term, $r['title'])], $hits);
        return ['search' => $scored, 'hooks' => $this->hooks('ApiSearch', $n, $seed)];
    }
}

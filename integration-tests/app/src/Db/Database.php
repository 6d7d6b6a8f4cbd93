<?php
declare(strict_types=1);

namespace App\Db;

/** An in-memory "database": tables of rows, selects with closures. */
final class Database
{
    private array $tables = [];

    public function __construct(int $rows)
    {
        $this->tables['page'] = Table::generate('page', $rows, 11);
        $this->tables['revision'] = Table::generate('revision', $rows * 2, 23);
    }

    public function select(string $table, \Closure $where, string $orderBy, int $limit): array
    {
        $rows = array_values(array_filter($this->tables[$table]->rows, $where));
        usort($rows, static fn(array $a, array $b): int => $a[$orderBy] <=> $b[$orderBy]);
        return array_slice($rows, 0, $limit);
    }

    public function query(string $sql, int $seed): array
    {
        if (!preg_match('/^SELECT \* FROM (\w+) WHERE (\w+) % (\d+) = (\d+) ORDER BY (\w+) LIMIT (\d+)$/', $sql, $m)) {
            throw new \InvalidArgumentException("cannot parse: $sql");
        }
        [, $table, $col, $mod, $rem, $order, $limit] = $m;
        return $this->select($table, static fn(array $r): bool => $r[$col] % (int)$mod === ((int)$rem + $seed) % (int)$mod,
            $order, (int)$limit);
    }
}

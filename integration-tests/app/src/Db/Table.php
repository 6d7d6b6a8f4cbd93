<?php
declare(strict_types=1);

namespace App\Db;

final class Table
{
    public array $rows = [];

    public static function generate(string $name, int $n, int $seed): self
    {
        $t = new self();
        $x = $seed;
        for ($i = 0; $i < $n; $i++) {
            $x = ($x * 1103515245 + 12345) & 0x7fffffff;
            $t->rows[] = ['id' => $i, 'len' => $x % 50000, 'touched' => $x % 86400, 'title' => "$name $i"];
        }
        return $t;
    }
}

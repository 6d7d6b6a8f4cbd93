<?php
// Old-style global helpers, as a legacy code base has them.
declare(strict_types=1);

function wfSeed(string $s): int
{
    return crc32($s) & 0x7fffffff;
}

function wfUrlencode(string $s): string
{
    return str_replace(['%3A', '%2F'], [':', '/'], rawurlencode(str_replace(' ', '_', $s)));
}

function wfEscapeHtml(string $s): string
{
    return htmlspecialchars($s, ENT_QUOTES | ENT_SUBSTITUTE, 'UTF-8');
}

function wfArrayMergeRecursive(array $a, array $b): array
{
    foreach ($b as $k => $v) {
        $a[$k] = is_array($v) && isset($a[$k]) && is_array($a[$k]) ? wfArrayMergeRecursive($a[$k], $v) : $v;
    }
    return $a;
}

function wfBusyWork(int $n): int
{
    $x = 0;
    for ($i = 0; $i < $n; $i++) {
        $x = ($x * 31 + $i) % 1000003;
    }
    return $x;
}

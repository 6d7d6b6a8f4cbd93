<?php
declare(strict_types=1);

namespace App\Parser;

final class Sanitizer
{
    private const ALLOWED = ['a', 'b', 'i', 'h2', 'li', 'table', 'tr', 'th', 'td', 'cite', 'ref'];

    public static function clean(string $html): string
    {
        return preg_replace_callback('#<(/?)([a-z0-9]+)([^>]*)>#i', static function (array $m): string {
            $tag = strtolower($m[2]);
            if (!in_array($tag, self::ALLOWED, true)) {
                return wfEscapeHtml($m[0]);
            }
            return '<' . $m[1] . $tag . self::attributes($m[3]) . '>';
        }, $html);
    }

    private static function attributes(string $attrs): string
    {
        preg_match_all('/(\w+)="([^"]*)"/', $attrs, $m, PREG_SET_ORDER);
        $out = '';
        foreach ($m as [, $k, $v]) {
            if ($k === 'href' || $k === 'class') {
                $out .= ' ' . $k . '="' . wfEscapeHtml($v) . '"';
            }
        }
        return $out;
    }
}

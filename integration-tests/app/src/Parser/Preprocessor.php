<?php
declare(strict_types=1);

namespace App\Parser;

/** Finds {{templates}} (nested, by brace matching) and expands them. */
final class Preprocessor
{
    public function __construct(private Parser $parser)
    {
    }

    public function expand(string $text, int $depth): string
    {
        $out = '';
        $len = strlen($text);
        $i = 0;
        while ($i < $len) {
            $start = strpos($text, '{{', $i);
            if ($start === false) {
                $out .= substr($text, $i);
                break;
            }
            $out .= substr($text, $i, $start - $i);
            $end = $this->matchBraces($text, $start);
            if ($end < 0) {
                $out .= substr($text, $start);
                break;
            }
            $inner = substr($text, $start + 2, $end - $start - 2);
            $out .= $this->expandTemplate($inner, $depth);
            $i = $end + 2;
        }
        return $out;
    }

    private function matchBraces(string $text, int $start): int
    {
        $level = 0;
        $len = strlen($text);
        for ($j = $start; $j < $len - 1; $j++) {
            if ($text[$j] === '{' && $text[$j + 1] === '{') {
                $level++;
                $j++;
            } elseif ($text[$j] === '}' && $text[$j + 1] === '}') {
                $level--;
                if ($level === 0) {
                    return $j;
                }
                $j++;
            }
        }
        return -1;
    }

    private function expandTemplate(string $inner, int $depth): string
    {
        $inner = $this->expand($inner, $depth + 1);
        $parts = explode('|', $inner);
        $name = trim(array_shift($parts));
        $args = [];
        foreach ($parts as $k => $p) {
            [$key, $val] = str_contains($p, '=') ? explode('=', $p, 2) : [$k, $p];
            $args[$key] = $val;
        }
        return $this->parser->template($name, $args, $depth);
    }
}

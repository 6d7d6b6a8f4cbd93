<?php
declare(strict_types=1);

namespace App\Parser;

use App\Core\HookRunner;

/** A toy wikitext parser: templates expand recursively, links and
 * formatting are replaced, the result is sanitized. */
final class Parser
{
    private Preprocessor $pp;

    public function __construct(private HookRunner $hooks)
    {
        $this->pp = new Preprocessor($this);
    }

    public function parse(string $title, int $n, int $seed): string
    {
        $text = self::synthesize($title, $n, $seed);
        $this->hooks->run('ParserBeforeInternalParse', max(1, $n >> 2), $seed);
        $text = $this->pp->expand($text, 0);
        $text = $this->internalParse($text);
        $this->hooks->run('ParserAfterTidy', max(1, $n >> 2), $seed + 1);
        return Sanitizer::clean($text);
    }

    public static function synthesize(string $title, int $n, int $seed): string
    {
        $parts = [];
        for ($i = 0; $i < max(4, $n >> 1); $i++) {
            $k = ($seed + $i * 2654435761) & 0xff;
            $parts[] = match ($k % 5) {
                0 => "'''$title $i''' is [[Page $k|a page]].",
                1 => "{{Infobox|name=$title|n=$k|{{Nested|$k}}}}",
                2 => "== Section $i ==\n* item ''$k''\n* [[Link $i]]",
                3 => "{{Cite|year=20$k|title=$title}} <ref>note $k</ref>",
                default => "Plain text $k with <b>markup</b> & entities.",
            };
        }
        return implode("\n", $parts);
    }

    public function template(string $name, array $args, int $depth): string
    {
        if ($depth > 6) {
            return '';
        }
        $body = match ($name) {
            'Infobox' => '<table>' . implode('', array_map(
                fn($k, $v) => "<tr><th>$k</th><td>$v</td></tr>", array_keys($args), $args)) . '</table>',
            'Nested' => '{{Cite|depth=' . $depth . '|' . ($args[0] ?? '') . '}}',
            'Cite' => '<cite>' . implode(', ', $args) . '</cite>',
            default => "[[Template:$name]]",
        };
        return $this->pp->expand($body, $depth + 1);
    }

    private function internalParse(string $text): string
    {
        $text = preg_replace_callback('/\[\[([^|\]]+)(?:\|([^\]]+))?\]\]/',
            static fn(array $m): string => '<a href="/wiki/' . wfUrlencode($m[1]) . '">'
                . wfEscapeHtml($m[2] ?? $m[1]) . '</a>', $text);
        $text = preg_replace("/'''(.+?)'''/", '<b>$1</b>', $text);
        $text = preg_replace("/''(.+?)''/", '<i>$1</i>', $text);
        $text = preg_replace('/^== *(.+?) *==$/m', '<h2>$1</h2>', $text);
        return preg_replace('/^\* *(.+)$/m', '<li>$1</li>', $text);
    }
}

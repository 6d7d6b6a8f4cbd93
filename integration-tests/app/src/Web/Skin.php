<?php
declare(strict_types=1);

namespace App\Web;

final class Skin
{
    public function render(string $title, string $content, array $rows): string
    {
        $nav = implode('', array_map(static fn(array $r): string =>
            '<li><a href="/wiki/' . wfUrlencode($r['title']) . '">' . wfEscapeHtml($r['title']) . '</a></li>', $rows));
        return '<!DOCTYPE html><html><head><title>' . wfEscapeHtml($title) . '</title></head><body>'
            . '<nav><ul>' . $nav . '</ul></nav><main>' . $content . '</main></body></html>';
    }
}

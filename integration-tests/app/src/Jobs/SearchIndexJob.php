<?php
declare(strict_types=1);

namespace App\Jobs;

final class SearchIndexJob extends HookJob
{
    public function getType(): string
    {
        return 'cirrusSearchLinksUpdate';
    }

    protected function doRun(int $n): int
    {
        $words = str_word_count(str_repeat("the quick brown fox {$this->seed} jumps over the lazy dog ", $n), 1);
        $index = [];
        foreach ($words as $w) {
            $index[metaphone($w)][] = $w;
        }
        ksort($index);
        return count($index);
    }
}

<?php
declare(strict_types=1);

namespace App\Jobs;

final class RefreshLinksJob extends HookJob
{
    public function getType(): string
    {
        return 'refreshLinks';
    }

    protected function doRun(int $n): int
    {
        $text = \App\Parser\Parser::synthesize("Job {$this->seed}", $n, $this->seed);
        preg_match_all('/\[\[([^|\]]+)/', $text, $m);
        return count(array_unique($m[1]));
    }
}

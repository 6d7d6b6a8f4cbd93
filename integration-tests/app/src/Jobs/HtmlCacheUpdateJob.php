<?php
declare(strict_types=1);

namespace App\Jobs;

final class HtmlCacheUpdateJob extends HookJob
{
    public function getType(): string
    {
        return 'htmlCacheUpdate';
    }

    protected function doRun(int $n): int
    {
        $urls = [];
        for ($i = 0; $i < $n * 4; $i++) {
            $urls[] = 'https://fleet.test/wiki/' . wfUrlencode("Page {$this->seed} $i");
        }
        return count(array_filter($urls, static fn(string $u): bool => crc32($u) % 3 === 0));
    }
}

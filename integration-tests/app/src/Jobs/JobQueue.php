<?php
declare(strict_types=1);

namespace App\Jobs;

use App\Core\HookRunner;

final class JobQueue
{
    private const TYPES = [RefreshLinksJob::class, HtmlCacheUpdateJob::class, SearchIndexJob::class];
    private \SplQueue $queue;

    public function __construct(private HookRunner $hooks)
    {
        $this->queue = new \SplQueue();
    }

    public function push(int $seed): void
    {
        $class = self::TYPES[$seed % count(self::TYPES)];
        $this->queue->enqueue(new $class($this->hooks, $seed));
    }

    public function pop(): ?Job
    {
        return $this->queue->isEmpty() ? null : $this->queue->dequeue();
    }
}

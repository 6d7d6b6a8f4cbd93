<?php
declare(strict_types=1);

namespace App\Core;

final class Response
{
    public array $headers = ['Content-Type' => 'text/html; charset=utf-8'];

    public function __construct(public string $body = '', public int $status = 200)
    {
    }

    public static function json(array $data, int $status = 200): self
    {
        $r = new self(json_encode($data, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR), $status);
        $r->headers['Content-Type'] = 'application/json';
        return $r;
    }

    public function send(): void
    {
        http_response_code($this->status);
        foreach ($this->headers as $k => $v) {
            header("$k: $v");
        }
        echo $this->body;
    }
}

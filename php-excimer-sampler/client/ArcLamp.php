<?php
/**
 * Arc Lamp client: samples the current request with Excimer and sends the
 * collapsed stacks to Arc Lamp. A drop-in for the original ArcLamp.php:
 *
 *     require_once 'ArcLamp.php';
 *     Wikimedia\ArcLamp::collect( [ 'redis-host' => '127.0.0.1' ] );
 *
 * With this project's excimer extension it sends through the native
 * transport (excimer_arclamp_send(): Redis, UDP or a unix socket, bounded by
 * a timeout, no php-redis needed); with another Excimer it falls back to
 * php-redis. Delivery failures never reach the request: they are counted to
 * statsd as <statsd-prefix><reason> when statsd-host is set (reasons:
 * connect, timeout, send, reply, and unheard for lines Redis published to
 * no subscriber, i.e. while arclamp-log was not listening).
 *
 * Options (the original's, and ours):
 * - redis-host, redis-port, redis-timeout (seconds, default 0.1)
 * - redis-channel: default 'excimer'
 * - statsd-host, statsd-port (8125), statsd-prefix ('MediaWiki.arclamp_client_error.')
 * - target: an arclamp-log target instead of Redis, e.g. 'unix:///run/arclamp/ingest.sock',
 *   'udp://127.0.0.1:7761', 'redis://host:6379/excimer?stream=1' or a Redis Cluster,
 *   'redis-cluster://host1:6379,host2:6379/excimer?shards=8&stream=1' (native transport only)
 * - period: seconds between samples (default 60); event-type: EXCIMER_CPU (default) or
 *   EXCIMER_REAL; max-depth: frames kept per sample (default 250)
 */

namespace Wikimedia;

use ExcimerLog;
use ExcimerProfiler;

final class ArcLamp {
    private const DEFAULTS = [
        'redis-host' => '127.0.0.1',
        'redis-port' => 6379,
        'redis-timeout' => 0.1,
        'redis-channel' => 'excimer',
        'statsd-host' => null,
        'statsd-port' => 8125,
        'statsd-prefix' => 'MediaWiki.arclamp_client_error.',
        'target' => null,
        'period' => 60,
        'event-type' => null,
        'max-depth' => 250,
    ];

    /** @var ExcimerProfiler|null kept for the life of the request */
    private static $profiler = null;

    /**
     * Starts sampling this request; each sample is sent when it is taken
     * (and what is left when the request ends).
     */
    public static function collect( array $options = [] ): void {
        if ( !extension_loaded( 'excimer' ) ) {
            return;
        }
        $options += self::DEFAULTS;
        $prof = new ExcimerProfiler();
        $prof->setPeriod( (float)$options['period'] );
        $prof->setEventType( $options['event-type'] ?? EXCIMER_CPU );
        $prof->setMaxDepth( (int)$options['max-depth'] );
        $prof->setFlushCallback( static function ( ExcimerLog $log ) use ( $options ) {
            self::flush( $log, $options );
        }, 1 );
        $prof->start();
        self::$profiler = $prof;
    }

    /** Sends a log's stacks to Arc Lamp. */
    public static function flush( ExcimerLog $log, array $options ): void {
        $options += self::DEFAULTS;
        $collapsed = $log->formatCollapsed();
        if ( $collapsed === '' ) {
            return;
        }
        $entry = self::entryPoint();
        if ( function_exists( 'excimer_arclamp_send' ) ) {
            self::sendNative( $collapsed, $entry, $options );
        } elseif ( class_exists( 'Redis' ) && $options['target'] === null ) {
            self::sendPhpRedis( $collapsed, $entry, $options );
        } else {
            self::countError( $options, 'no_transport' );
        }
    }

    private static function sendNative( string $collapsed, string $entry, array $options ): void {
        $target = $options['target'] ?? sprintf( 'redis://%s:%d/%s',
            $options['redis-host'], $options['redis-port'], $options['redis-channel'] );
        $before = self::nativeCounters();
        $timeout = ini_get( 'excimer.arclamp_timeout' );
        // At most excimer.arclamp_timeout_max (the host's cap, default 1 s).
        $max = (float)( ini_get( 'excimer.arclamp_timeout_max' ) ?: 1.0 );
        ini_set( 'excimer.arclamp_timeout', (string)min( $max, (float)$options['redis-timeout'] ) );
        excimer_arclamp_send( $target, $collapsed, $entry );
        ini_set( 'excimer.arclamp_timeout', (string)$timeout );
        foreach ( self::nativeCounters() as $reason => $count ) {
            if ( $count > $before[$reason] ) {
                self::countError( $options, $reason, $count - $before[$reason] );
            }
        }
    }

    /**
     * The transport's failure counters by reason, and 'unheard': lines
     * Redis accepted with no subscriber listening (so nobody got them).
     */
    private static function nativeCounters(): array {
        $stats = excimer_arclamp_stats();
        return $stats['errors'] + [ 'unheard' => $stats['unheard'] ];
    }

    private static function sendPhpRedis( string $collapsed, string $entry, array $options ): void {
        try {
            $redis = new \Redis();
            if ( !$redis->connect( $options['redis-host'], (int)$options['redis-port'],
                (float)$options['redis-timeout'] ) ) {
                self::countError( $options, 'connect' );
                return;
            }
            $unheard = 0;
            foreach ( explode( "\n", $collapsed ) as $line ) {
                if ( $line === '' ) {
                    continue;
                }
                if ( $redis->publish( $options['redis-channel'], self::withEntry( $line, $entry ) ) === 0 ) {
                    $unheard++;
                }
            }
            if ( $unheard ) {
                self::countError( $options, 'unheard', $unheard );
            }
        } catch ( \Throwable $e ) {
            self::countError( $options, 'redis_exception' );
        }
    }

    /** The line with the entry point as its first frame, as the original client does. */
    public static function withEntry( string $line, string $entry ): string {
        $len = strlen( $entry );
        if ( $len && strncmp( $line, $entry, $len ) === 0
            && isset( $line[$len] ) && ( $line[$len] === ';' || $line[$len] === ' ' ) ) {
            return $line;
        }
        return $len ? "$entry;$line" : $line;
    }

    private static function entryPoint(): string {
        $file = $_SERVER['SCRIPT_FILENAME'] ?? '';
        $real = $file !== '' ? realpath( $file ) : false;
        return $real !== false ? $real : $file;
    }

    private static function countError( array $options, string $reason, int $count = 1 ): void {
        if ( !$options['statsd-host'] ) {
            return;
        }
        $sock = @fsockopen( 'udp://' . $options['statsd-host'], (int)$options['statsd-port'] );
        if ( $sock ) {
            @fwrite( $sock, "{$options['statsd-prefix']}{$reason}:{$count}|c" );
            fclose( $sock );
        }
    }
}

/* fpm_worker.c: the idle flush and the SIGTERM delivery of php-fpm
 * workers (see fpm_worker.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "SAPI.h"
#include "zend_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "clock.h"
#include "fpm_worker.h"
#include "php_excimer.h"
#include "sender.h"
#include "timerlib.h"

#define IDLE_FLUSH 0.5           /* seconds without a request before the aggregates go */
#define WAKE_IDLE 'I'            /* a request ended */
#define WAKE_TERM_IDLE 'T'       /* SIGTERM between requests: the aggregates too */
#define WAKE_TERM_BUSY 'B'       /* SIGTERM during a request: it gets until the deadline */
#define WAKE_EXIT 'X'            /* module shutdown */
#define SLACK_MS 50

/* Process-wide, as signal dispositions and the worker's thread are. The
 * handler reads only plain values and descriptors, set before it is
 * registered.
 * Per process by design, never per thread: the extension is NTS only
 * (config.m4 refuses ZTS; README, "Threads: NTS only"). */
static struct {
    void (*flush)(bool now);
    bool decided;                /* whether this process is a php-fpm worker is decided */
    pid_t pid;                   /* the worker with the thread (not a pcntl_fork() child) */
    volatile sig_atomic_t in_request;
    volatile sig_atomic_t term_pending; /* SIGTERM came during a request */
    pthread_mutex_t lock;        /* the PHP thread's during a request */
    int wake[2], done[2];        /* PHP thread and handler -> thread, thread -> handler */
    int wait_ms;
    pthread_t thread;
} fw = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = {-1, -1}, .done = {-1, -1}};

/* The aggregates are handed over if no request holds them. */
static void flush_between_requests(bool now)
{
    if (fw.flush && pthread_mutex_trylock(&fw.lock) == 0) {
        fw.flush(now);
        pthread_mutex_unlock(&fw.lock);
    }
}

/* SIGTERM's default action, now. */
static void die_of_sigterm(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &dfl, NULL);
    raise(SIGTERM);
}

static void terminate_idle(void)
{
    flush_between_requests(false);
    sender_module_shutdown(); /* delivers the queue, each job within its deadline */
    char done = 1;
    while (write(fw.done[1], &done, 1) < 0 && errno == EINTR)
        ;
}

/* Waits for requests' ends and SIGTERM; flushes after IDLE_FLUSH seconds
 * without a request. */
static void *worker_main(void *arg)
{
    (void)arg;
    double flush_at = 0; /* 0: nothing waits to be flushed */
    for (;;) {
        int ms = -1;
        if (flush_at) {
            double left = flush_at - clock_mono();
            ms = left > 0 ? (int)(left * 1000.0) + 1 : 0;
        }
        struct pollfd p = {.fd = fw.wake[0], .events = POLLIN};
        int rc = poll(&p, 1, ms);
        if (rc == 0) {
            flush_at = 0;
            flush_between_requests(true);
            continue;
        }
        char why[64];
        ssize_t n = rc > 0 ? read(fw.wake[0], why, sizeof why) : 0;
        for (ssize_t i = 0; i < n; i++) {
            if (why[i] == WAKE_IDLE)
                flush_at = clock_mono() + IDLE_FLUSH;
            else if (why[i] == WAKE_EXIT)
                return NULL;
            else if (why[i] == WAKE_TERM_IDLE) {
                terminate_idle();
                return NULL;
            } else if (why[i] == WAKE_TERM_BUSY) {
                /* the request's end delivers and dies (request_end): if it
                 * has not by the deadline, the process dies without it */
                poll(NULL, 0, fw.wait_ms);
                die_of_sigterm();
                return NULL;
            }
        }
    }
}

static void wake(char why)
{
    while (write(fw.wake[1], &why, 1) < 0 && errno == EINTR)
        ;
}

/* Between requests: waits (bounded) for the thread's delivery, then dies.
 * During one (MediaWiki goes on with deferred updates after its response):
 * the request may end first, within the same bound, and deliver. */
static void on_sigterm(int sig)
{
    int saved_errno = errno;
    if (getpid() == fw.pid && fw.in_request) {
        fw.term_pending = 1;
        wake(WAKE_TERM_BUSY);
        errno = saved_errno;
        return;
    }
    if (getpid() == fw.pid) {
        wake(WAKE_TERM_IDLE);
        struct pollfd p = {.fd = fw.done[0], .events = POLLIN};
        while (poll(&p, 1, fw.wait_ms) < 0 && errno == EINTR)
            ;
    }
    /* then as if we had never been here: SIGTERM (blocked while its handler
     * runs) is taken with its default action when the handler returns */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &dfl, NULL);
    raise(sig);
    errno = saved_errno;
}

/* The engine's signal handling (zend_signal) resets its table of handlers
 * at every request's start and calls the one in it, also between requests:
 * ours goes in at every request's start, through it, when SIGTERM has its
 * default action then. */
static void take_sigterm(void)
{
    struct sigaction current, sa;
    zend_sigaction(SIGTERM, NULL, &current);
    if (current.sa_handler != SIG_DFL)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigterm;
    sigemptyset(&sa.sa_mask);
    zend_sigaction(SIGTERM, &sa, NULL);
}

static void close_pair(int fds[2])
{
    if (fds[0] >= 0) {
        close(fds[0]);
        close(fds[1]);
    }
    fds[0] = fds[1] = -1;
}

/* In a php-fpm worker: the pipes and the thread. 0, or -1 (then nothing
 * of this file is active). */
static int start(void)
{
    if (pipe2(fw.wake, O_CLOEXEC) < 0 || pipe2(fw.done, O_CLOEXEC) < 0 ||
        timerlib_thread_create(&fw.thread, worker_main, NULL) != 0) {
        close_pair(fw.wake);
        close_pair(fw.done);
        return -1;
    }
    fw.pid = getpid();
    fw.wait_ms = (int)(EXCIMER_G(arclamp_timeout) * 1000.0) + SLACK_MS;
    return 0;
}

void excimer_fpm_worker_module_init(void (*flush)(bool now))
{
    fw.flush = flush;
}

void excimer_fpm_worker_module_shutdown(void)
{
    if (!fw.pid || fw.pid != getpid())
        return;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    zend_sigaction(SIGTERM, &dfl, NULL);
    wake(WAKE_EXIT);
    pthread_join(fw.thread, NULL);
    close_pair(fw.wake);
    close_pair(fw.done);
    fw.pid = 0;
}

void excimer_fpm_worker_request_start(void)
{
    fw.in_request = 1;
    if (!fw.decided) {
        fw.decided = true;
        if (!sapi_module.name || strcmp(sapi_module.name, "fpm-fcgi") != 0 || start() < 0)
            return;
    }
    if (fw.pid != getpid())
        return;
    pthread_mutex_lock(&fw.lock);
    take_sigterm();
}

void excimer_fpm_worker_request_end(void)
{
    if (fw.pid == getpid()) {
        if (fw.term_pending) { /* told to stop during the request: its end is the last */
            if (fw.flush)
                fw.flush(false);
            sender_module_shutdown();
            die_of_sigterm();
        }
        pthread_mutex_unlock(&fw.lock);
        wake(WAKE_IDLE);
    }
    fw.in_request = 0;
}

/* sender: the Arc Lamp sender thread, its bounded queue and fork handling.
 * See sender.h. */
#include "sender.h"
#include "clock.h"
#include "timerlib.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A waiter also waits this long past the deadline for the thread's answer,
 * which the thread gives right at the deadline at the latest. */
#define WAIT_SLACK 0.002

typedef struct sender_job {
    struct sender_job *next;
    transport_target target;
    char *text;                  /* the lines; freed by the thread when delivered */
    size_t len, nlines;
    double queued_at;            /* clock_mono() time it was handed over */
    double send_at;              /* not sent before this, unless a batch goes earlier */
    double timeout;              /* seconds its delivery may take */
    double deadline;             /* send_at + timeout: later, it fails unsent */
    int waited;                  /* a caller waits for it (and frees it) */
    int done;                    /* delivered or failed: `delivered` is final */
    int abandoned;               /* the waiter gave up: the thread frees it */
    long delivered;              /* lines delivered */
} sender_job;

/* Process-wide: the sender thread, its queue and counters belong to the
 * process (a php-fpm worker serves many requests with one connection), and
 * the fork handlers can reach nothing else. All of it is guarded by `lock`,
 * except `conn`, which only the thread touches (and a forked child, where
 * the thread is gone), and `has_news`, read without the lock.
 * Process-wide under a thread-safe PHP too (one thread and queue, locked),
 * though the extension is NTS only (config.m4 refuses ZTS; README,
 * "Threads: NTS only"). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;         /* the thread waits here for jobs */
    pthread_cond_t done;         /* waiters wait here for their job */
    sender_job *head, *tail;     /* the queue, oldest first */
    double due;                  /* the earliest send_at in the queue */
    size_t queued_bytes;
    long queued_lines;
    int waiters;                 /* jobs in the queue someone waits for */
    int started;                 /* the thread runs in this process */
    int stopping;                /* MSHUTDOWN: finish the queue, then end */
    pthread_t thread;
    transport_stats stats;
    transport_conn conn;         /* the thread's kept connection */
    int failing;                 /* the last job failed (some line) */
    long failed_while_failing;   /* lines failed since it started failing */
    char news[400];              /* a change to log, "" when none */
    int news_is_failure;
    atomic_int has_news;
} g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .work = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

static void merge_stats(const transport_stats *local)
{
    g.stats.lines_sent += local->lines_sent;
    g.stats.lines_failed += local->lines_failed;
    g.stats.lines_unheard += local->lines_unheard;
    for (int e = 0; e < TRANSPORT_NERRORS; e++)
        g.stats.errors[e] += local->errors[e];
    if (local->last_error[0])
        memcpy(g.stats.last_error, local->last_error, sizeof g.stats.last_error);
}

/* Keeps a line for the error log when the state changes; under the lock. */
static void note_outcome(const transport_stats *local)
{
    if (local->lines_failed && !g.failing) {
        g.failing = 1;
        g.failed_while_failing = 0;
        snprintf(g.news, sizeof g.news,
                 "excimer: Arc Lamp: %.250s (further failures are counted in "
                 "excimer_arclamp_stats())", local->last_error);
        g.news_is_failure = 1;
        atomic_store(&g.has_news, 1);
    } else if (!local->lines_failed && local->lines_sent && g.failing) {
        g.failing = 0;
        snprintf(g.news, sizeof g.news,
                 "excimer: Arc Lamp: delivering again (%ld lines failed meanwhile)",
                 g.failed_while_failing);
        g.news_is_failure = 0;
        atomic_store(&g.has_news, 1);
    }
    if (g.failing)
        g.failed_while_failing += local->lines_failed;
}

/* Books the outcome of jobs delivered together (under the lock). */
static void book(sender_job *first, sender_job *end, const transport_stats *local,
                 long delivered)
{
    merge_stats(local);
    note_outcome(local);
    for (sender_job *job = first, *next; job != end; job = next) {
        next = job->next;
        g.queued_bytes -= job->len;
        g.queued_lines -= (long)job->nlines;
        job->delivered = delivered;
        job->done = 1;
        if (job->waited && !job->abandoned) {
            g.waiters--;
            pthread_cond_broadcast(&g.done);
        } else {
            if (job->waited)
                g.waiters--;
            free(job);
        }
    }
}

/* Delivers the jobs from `first` up to `end` (not included), all for the
 * same target, as one send: their lines go in as few messages and one
 * round trip. Called without the lock. */
static void deliver(sender_job *first, sender_job *end)
{
    transport_stats local;
    memset(&local, 0, sizeof local);
    double now = clock_mono(), timeout = first->timeout;
    size_t len = 0, nlines = 0, n = 0;
    for (sender_job *job = first; job != end; job = job->next) {
        len += job->len + (n++ ? 1 : 0);
        nlines += job->nlines;
        timeout = job->timeout < timeout ? job->timeout : timeout;
    }
    char *text = n == 1 ? first->text : malloc(len);
    long delivered = 0;
    if (!text) {
        transport_fail(&local, TRANSPORT_ERR_SEND, (long)nlines, "out of memory");
    } else if (n == 1 && now >= first->deadline) {
        transport_fail(&local, TRANSPORT_ERR_TIMEOUT, (long)nlines,
                       "timed out after %.3fs in the queue behind other sends",
                       now - first->queued_at);
    } else {
        size_t off = 0;
        for (sender_job *job = first; n > 1 && job != end; job = job->next) {
            if (off)
                text[off++] = '\n';
            memcpy(text + off, job->text, job->len);
            off += job->len;
        }
        delivered = transport_deliver(&g.conn, &first->target, text, len, nlines,
                                      now + timeout, &local);
    }
    if (text != first->text)
        free(text);
    for (sender_job *job = first; job != end; job = job->next) {
        free(job->text);
        job->text = NULL;
    }
    pthread_mutex_lock(&g.lock);
    book(first, end, &local, delivered);
    pthread_mutex_unlock(&g.lock);
}

/* Waits (under the lock) until a job is due: the earliest send_at (a job
 * queued to go now must not wait behind older ones held back longer), or
 * sooner when someone waits for a job, the queue holds SENDER_BATCH_BYTES,
 * or the module stops. Then the whole queue goes. */
static void wait_until_due(void)
{
    while (g.head && !g.stopping && !g.waiters && g.queued_bytes < SENDER_BATCH_BYTES) {
        double left = g.due - clock_mono();
        if (left <= 0)
            return;
        double until = clock_mono() + left;
        struct timespec ts = {(time_t)until, (long)((until - (double)(time_t)until) * 1e9)};
        pthread_cond_timedwait(&g.work, &g.lock, &ts);
    }
}

static void *sender_main(void *arg)
{
    (void)arg;
#ifdef __GLIBC__
    pthread_setname_np(pthread_self(), "excimer-sender");
#endif
    pthread_mutex_lock(&g.lock);
    for (;;) {
        while (!g.head && !g.stopping)
            pthread_cond_wait(&g.work, &g.lock);
        wait_until_due();
        sender_job *batch = g.head;
        if (!batch)
            break; /* stopping, and nothing left */
        g.head = g.tail = NULL;
        pthread_mutex_unlock(&g.lock);
        /* Runs of jobs for one target go together; a job someone waits for
         * goes alone, so its count of delivered lines is its own. */
        while (batch) {
            sender_job *end = batch->next;
            while (end && !batch->waited && !end->waited &&
                   transport_target_equal(&end->target, &batch->target))
                end = end->next;
            sender_job *next = end;
            deliver(batch, end);
            batch = next;
        }
        pthread_mutex_lock(&g.lock);
    }
    pthread_mutex_unlock(&g.lock);
    transport_conn_close(&g.conn);
    return NULL;
}

/* Starts the thread unless it runs; under the lock. 0 or an errno value. */
static int ensure_started(void)
{
    if (g.started)
        return 0;
    int rc = timerlib_thread_create(&g.thread, sender_main, NULL);
    if (rc == 0) {
        g.started = 1;
        g.stopping = 0;
    }
    return rc;
}

static sender_job *make_job(const transport_target *t, char *text, size_t len, size_t nlines,
                            double timeout, double delay, int waited)
{
    sender_job *job = calloc(1, sizeof *job);
    if (!job)
        return NULL;
    job->target = *t;
    job->text = text;
    job->len = len;
    job->nlines = nlines;
    job->queued_at = clock_mono();
    job->send_at = job->queued_at + (delay > 0 ? delay : 0);
    job->timeout = timeout;
    job->deadline = job->send_at + timeout;
    job->waited = waited;
    return job;
}

/* Queues the job, or fails it at once (queue full, no thread); under the
 * lock. 0 when queued. */
static int enqueue(sender_job *job)
{
    if (g.queued_bytes + job->len > SENDER_QUEUE_MAX) {
        transport_fail(&g.stats, TRANSPORT_ERR_BACKLOG, (long)job->nlines,
                       "%zu bytes of lines already wait to be sent; %zu lines dropped",
                       g.queued_bytes, job->nlines);
        return -1;
    }
    int rc = ensure_started();
    if (rc != 0) {
        transport_fail(&g.stats, TRANSPORT_ERR_SEND, (long)job->nlines,
                       "cannot start the sender thread: %s", strerror(rc));
        return -1;
    }
    /* The thread is woken only when it has something to do now: for the
     * first job (it then sleeps until that one is due), for a job someone
     * waits for, and for a full batch. Other jobs join the batch quietly. */
    int wake = !g.head || job->waited || g.queued_bytes + job->len >= SENDER_BATCH_BYTES ||
               job->send_at < g.due;
    if (!g.head || job->send_at < g.due)
        g.due = job->send_at;
    if (g.tail)
        g.tail->next = job;
    else
        g.head = job;
    g.tail = job;
    g.queued_bytes += job->len;
    g.queued_lines += (long)job->nlines;
    g.waiters += job->waited;
    if (wake)
        pthread_cond_signal(&g.work);
    return 0;
}

void sender_submit(const transport_target *t, char *text, size_t len, size_t nlines,
                   double timeout, double delay)
{
    sender_job *job = make_job(t, text, len, nlines, timeout, delay, 0);
    pthread_mutex_lock(&g.lock);
    int queued = job && enqueue(job) == 0;
    if (!job)
        transport_fail(&g.stats, TRANSPORT_ERR_SEND, (long)nlines, "out of memory");
    pthread_mutex_unlock(&g.lock);
    if (!queued) {
        free(text);
        free(job);
    }
}

long sender_send_and_wait(const transport_target *t, char *text, size_t len, size_t nlines,
                          double timeout)
{
    sender_job *job = make_job(t, text, len, nlines, timeout, 0, 1);
    long delivered = 0;
    pthread_mutex_lock(&g.lock);
    if (!job || enqueue(job) < 0) {
        if (!job)
            transport_fail(&g.stats, TRANSPORT_ERR_SEND, (long)nlines, "out of memory");
        pthread_mutex_unlock(&g.lock);
        free(text);
        free(job);
        return 0;
    }
    double until = job->deadline + WAIT_SLACK;
    struct timespec ts = {(time_t)until, (long)((until - (double)(time_t)until) * 1e9)};
    while (!job->done) {
        /* g.done waits on CLOCK_MONOTONIC (init_conds), as clock_mono. */
        if (pthread_cond_timedwait(&g.done, &g.lock, &ts) == ETIMEDOUT)
            break;
    }
    if (job->done) {
        delivered = job->delivered;
        free(job);
    } else {
        job->abandoned = 1; /* the thread frees it when it is done */
    }
    pthread_mutex_unlock(&g.lock);
    return delivered;
}

void sender_stats(transport_stats *out, long *queued)
{
    pthread_mutex_lock(&g.lock);
    *out = g.stats;
    *queued = g.queued_lines;
    pthread_mutex_unlock(&g.lock);
}

int sender_take_news(char *buf, size_t len, int *is_failure)
{
    if (!atomic_load_explicit(&g.has_news, memory_order_relaxed))
        return 0;
    pthread_mutex_lock(&g.lock);
    int any = g.news[0] != '\0';
    if (any) {
        snprintf(buf, len, "%s", g.news);
        *is_failure = g.news_is_failure;
        g.news[0] = '\0';
    }
    atomic_store(&g.has_news, 0);
    pthread_mutex_unlock(&g.lock);
    return any;
}

/* --- fork and shutdown ---------------------------------------------------------- */

/* A waiter's deadline is a clock_mono() time: its condition waits on the
 * same clock, so a wall-clock jump cannot stretch a request's wait. */
static void init_conds(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g.done, &attr);
    pthread_cond_init(&g.work, &attr);
    pthread_condattr_destroy(&attr);
}

static void atfork_prepare(void)
{
    pthread_mutex_lock(&g.lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&g.lock);
}

/* Only the forking thread exists in the child. The queue is the parent's to
 * deliver; the connection is closed (the child's copy of the descriptor)
 * and forgotten without touching its buffers, which the parent's thread may
 * have been changing at the moment of the fork (a small leak per fork). */
static void atfork_child(void)
{
    for (sender_job *job = g.head, *next; job; job = next) {
        next = job->next;
        free(job->text);
        free(job);
    }
    g.head = g.tail = NULL;
    g.queued_bytes = 0;
    g.queued_lines = 0;
    g.waiters = 0;
    g.started = g.stopping = 0;
    transport_conn_forget_in_child(&g.conn);
    pthread_mutex_init(&g.lock, NULL);
    init_conds();
}

void sender_module_init(void)
{
    init_conds();
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void sender_module_shutdown(void)
{
    pthread_mutex_lock(&g.lock);
    int started = g.started;
    g.stopping = 1;
    pthread_cond_signal(&g.work);
    pthread_mutex_unlock(&g.lock);
    if (started)
        pthread_join(g.thread, NULL);
    pthread_mutex_lock(&g.lock);
    g.started = 0;
    pthread_mutex_unlock(&g.lock);
}

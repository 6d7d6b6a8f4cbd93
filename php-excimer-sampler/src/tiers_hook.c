/* tiers_hook: sees the calls of the tier functions, and only those.
 *
 * Every other call must run as if the extension were absent, which rules
 * out the engine's observer API (once one is registered, every call in the
 * process runs the observer-checking handlers: ~75 instructions a call,
 * measured for hprof) and zend_execute_ex (worse). The tier functions
 * themselves are changed instead:
 *  - an internal function (mysqli::query, preg_match) gets its handler
 *    swapped for tiers_internal_handler, which times the original;
 *  - a user function gets two kinds of its opcodes redirected: the first of
 *    its body (after the RECVs, which the engine skips when it can) and its
 *    RETURNs. A redirected opline keeps its operands; its number becomes
 *    TIERS_OPCODE (255: PHP 8.2's compiler emits 0..202) and its handler the
 *    engine's ZEND_USER_OPCODE handler, which calls ours; ours notes the
 *    call and hands the opline back to the engine's handler for its
 *    original number (ZEND_USER_OPCODE_DISPATCH_TO).
 * A frame an exception unwinds passes no RETURN: while tiers trace, the
 * engine's HANDLE_EXCEPTION (run in each frame an exception reaches) is
 * watched too, and tier calls whose frames are gone are closed there.
 *
 * With opcache a function's opcodes live in shared memory, at the same
 * address in every php-fpm worker: one worker's patch is seen by all. So
 * what a patched opline was is kept in a table in shared memory too (mapped
 * at MINIT, before the workers fork), and every worker has the handler for
 * TIERS_OPCODE from MINIT on. Opcodes compiled without opcache belong to
 * one request of one process: their table is private and emptied at
 * request end. Patches in shared memory stay until opcache drops the
 * script; a worker that does not trace runs them as a few instructions
 * more on the tier functions, nothing anywhere else. */
#include "php.h"
#include "zend_compile.h"
#include "zend_execute.h"
#include "zend_extensions.h"
#include "zend_vm.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpuclock.h"
#include "hooks.h"
#include "tiers.h"

#define TIERS_OPCODE 255
#define OP_ENTRY 1u
#define OP_EXIT 2u
/* The shared tables are a master's, and a master may run the pools of
 * several users: each user (the workers' effective uid) has a share of its
 * own, so that no pool's tiers can use up another's (a tenant that filled
 * the tables once switched every other pool's tiers off until php-fpm
 * restarted). A share holds a configuration's 64 functions many times over
 * (their RETURNs, their copies in several scripts or releases). */
#define OWNERS 32                   /* users with a share */
#define OWNER_OPS 1024              /* patched oplines in opcache's memory, per user */
#define OWNER_INTERNALS 64          /* internal functions swapped, per user */
#define SHARED_OPS 65536            /* every share fits within 3/4 of it */
#define PRIVATE_OPS 2048            /* patched oplines of one request */
#define INTERNALS (OWNERS * OWNER_INTERNALS)
#define STR_(x) #x
#define STR(x) STR_(x)
#define STACK_MAX 64                /* tier calls open at once */
#define FN_CACHE 256                /* functions looked up in one request */
#define SHM_RANGES 32

/* A patched opline and what it was. */
struct op_slot {
    const zend_op *op;              /* NULL: free */
    const void *orig_handler;
    uint8_t orig_opcode;
    uint8_t kind;                   /* OP_ENTRY | OP_EXIT */
};

struct optable {
    struct op_slot *slots;
    size_t cap;                     /* a power of two */
    size_t used;
    bool shared;                    /* other processes write it too */
};

/* An internal function swapped in some process; in shared memory, because
 * opcache may copy the function (its reserved[] slot pointing here) into
 * memory other workers read. */
struct internal_rec {
    const zend_function *func;      /* NULL: free */
    zif_handler orig;
};

/* A user's share of the shared tables, in shared memory with them: what
 * the processes of that user have taken. Never given back (a claim that
 * lost a race excepted), as the slots are not: a patch stays until
 * php-fpm restarts. */
struct owner {
    uint32_t key;                   /* the euid + 1; 0: free */
    uint32_t ops;                   /* shared oplines patched, at most OWNER_OPS */
    uint32_t internals;             /* internal records claimed, at most OWNER_INTERNALS */
};

_Static_assert(OWNERS * OWNER_OPS <= SHARED_OPS - SHARED_OPS / 4,
               "the shares fill at most 3/4 of the shared opline table");

/* A tier call in progress. */
struct frame {
    zend_execute_data *ex;
    const void *fiber;              /* EG(active_fiber) at the call: its own stack */
    int tier;
    bool outer;                     /* the outermost call of its tier: timed */
    uint64_t start;                 /* cpuclock ticks */
};

/* The per-process state of the hook. One per process: PHP is NTS here, and
 * the tables must outlive requests (shared patches, swapped handlers).
 * Per process by design, never per thread: the extension is NTS only
 * (config.m4 refuses ZTS; README, "Threads: NTS only"). */
static struct {
    struct optable shared_ops;      /* MAP_SHARED, from MINIT */
    struct optable private_ops;
    struct internal_rec *internals; /* MAP_SHARED, INTERNALS records */
    struct owner *owners;           /* MAP_SHARED, OWNERS shares */
    bool share_full_logged;         /* this process said its user's share is used up */
    int internal_tier[INTERNALS];   /* this process's tier of internals[i]; 0: none */
    bool internal_swapped[INTERNALS];
    int reserved;                   /* our slot in zend_function reserved[] */
    const void *user_opcode_handler;
    const char *no_user_fns;        /* why user functions cannot be tiers, or NULL */
    bool watching;                  /* tiers_rt.fns has functions */
    uintptr_t shm_lo[SHM_RANGES], shm_hi[SHM_RANGES];
    int nshm;                       /* -1: not read yet */
    struct frame stack[STACK_MAX];
    int depth;
    /* this request's answers of tier_of(): a function (its opcodes, which
     * copies share) called on a class (NULL: a plain function) */
    struct { const zend_op *opcodes; const zend_class_entry *called; int tier; } fn_cache[FN_CACHE];
    int fn_cache_used;
    /* configured Class::method whose class inherits the method from an
     * ancestor not compiled yet: the ancestor to look in when it is */
    struct { int fn; char *lc_ancestor; } pending[TIERS_FN_MAX];
    int npending;
    /* the last two oplines looked up: a tier function's entry and return
     * alternate, and a shared-table lookup costs a hash and a probe */
    struct { const zend_op *op; const struct op_slot *slot; } last[2];
} hk = {.reserved = -1, .nshm = -1};

/* --- tables of patched oplines --------------------------------------- */

static size_t op_hash(const zend_op *op, size_t cap)
{
    return (size_t)((((uintptr_t)op >> 5) * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static const struct op_slot *optable_find(const struct optable *t, const zend_op *op)
{
    size_t i = op_hash(op, t->cap);
    for (size_t n = 0; n < t->cap; n++, i = (i + 1) & (t->cap - 1)) {
        const zend_op *k = __atomic_load_n(&t->slots[i].op, __ATOMIC_ACQUIRE);
        if (k == op)
            return &t->slots[i];
        if (!k)
            return NULL;
    }
    return NULL;
}

/* --- the users' shares of the shared tables ---------------------------- */

/* The share of this process's user; with `take`, a free one is taken for
 * it. NULL: none (OWNERS other users have theirs). */
static struct owner *owner_share(bool take)
{
    if (!hk.owners)
        return NULL;
    uint32_t key = (uint32_t)geteuid() + 1; /* php-fpm's workers: the pool's user */
    for (int i = 0; i < OWNERS; i++) {
        uint32_t k = __atomic_load_n(&hk.owners[i].key, __ATOMIC_ACQUIRE);
        if (!k && take)
            __atomic_compare_exchange_n(&hk.owners[i].key, &k, key, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE);
        if (k == key || (!k && take))
            return &hk.owners[i];
        if (!k)
            return NULL;
    }
    return NULL;
}

/* One more of `count`, unless it is at `max` already. */
static bool share_take(uint32_t *count, uint32_t max)
{
    uint32_t n = __atomic_load_n(count, __ATOMIC_ACQUIRE);
    do {
        if (n >= max)
            return false;
    } while (!__atomic_compare_exchange_n(count, &n, n + 1, false, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    return true;
}

static void share_give_back(uint32_t *count)
{
    __atomic_fetch_sub(count, 1, __ATOMIC_ACQ_REL);
}

/* Said once per process, in PHP's error log: an operator learns why a
 * tier stopped counting new code without reading excimer_tiers_status()
 * (the caller counts what it could not patch in skipped). */
static void share_full(const char *what)
{
    if (hk.share_full_logged)
        return;
    hk.share_full_logged = true;
    char msg[300];
    snprintf(msg, sizeof msg,
             "excimer: request tiers: user %lu's share of the shared tables is used up (%s); "
             "tier functions it has not patched yet are not timed until php-fpm restarts",
             (unsigned long)geteuid(), what);
    php_log_err(msg);
}

/* Room for one more entry in t: the private table's own bound, or the
 * user's share of the shared one (which keeps it under 3/4 full). */
static bool optable_room(struct optable *t)
{
    if (!t->shared)
        return t->used < t->cap - t->cap / 4;
    struct owner *o = owner_share(true);
    if (o && share_take(&o->ops, OWNER_OPS))
        return true;
    share_full(o ? STR(OWNER_OPS) " patched oplines" : STR(OWNERS) " other users have shares");
    return false;
}

/* The slot of op, taken if it had none; NULL when there is no room. */
static struct op_slot *optable_claim(struct optable *t, const zend_op *op)
{
    size_t i = op_hash(op, t->cap);
    for (size_t n = 0; n < t->cap; n++, i = (i + 1) & (t->cap - 1)) {
        const zend_op *k = __atomic_load_n(&t->slots[i].op, __ATOMIC_ACQUIRE);
        if (!k) {
            if (!optable_room(t))
                return NULL;
            if (__atomic_compare_exchange_n(&t->slots[i].op, &k, op, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                t->used++; /* shared: this process's count (the user's is its share) */
                return &t->slots[i];
            }
            if (t->shared) /* another process took this slot meanwhile */
                share_give_back(&owner_share(false)->ops);
        }
        if (k == op)
            return &t->slots[i];
    }
    return NULL;
}

static void optable_clear(struct optable *t)
{
    if (t->used)
        memset(t->slots, 0, t->cap * sizeof *t->slots);
    t->used = 0;
}

/* --- where memory is ---------------------------------------------------- */

/* Reads this process's shared mappings once (opcache maps its memory at
 * startup and never grows it). */
static void read_shared_ranges(void)
{
    hk.nshm = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) {
        /* Without it a patch in opcache's memory could be taken for this
         * request's own and forgotten at its end: no user functions. */
        hk.no_user_fns = "/proc/self/maps cannot be read";
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, f) && hk.nshm < SHM_RANGES) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[3] == 's') {
            hk.shm_lo[hk.nshm] = lo;
            hk.shm_hi[hk.nshm++] = hi;
        }
    }
    fclose(f);
}

static bool in_shared_memory(const void *p)
{
    if (hk.nshm < 0)
        read_shared_ranges();
    for (int i = 0; i < hk.nshm; i++)
        if ((uintptr_t)p >= hk.shm_lo[i] && (uintptr_t)p < hk.shm_hi[i])
            return true;
    return false;
}

/* --- patching user functions ------------------------------------------ */

static bool is_recv(uint8_t opcode)
{
    return opcode == ZEND_RECV || opcode == ZEND_RECV_INIT || opcode == ZEND_RECV_VARIADIC;
}

static bool is_return(uint8_t opcode)
{
    return opcode == ZEND_RETURN || opcode == ZEND_RETURN_BY_REF;
}

/* Redirects one opline. The handler is read before the number and written
 * after it, so a patch another worker makes at the same moment is seen
 * whole or not at all; in between, the original handler runs, and no
 * engine handler reads its opline's number. */
static bool patch_op(zend_op *op, unsigned kind, struct optable *t)
{
    const void *handler = __atomic_load_n(&op->handler, __ATOMIC_ACQUIRE);
    uint8_t opcode = __atomic_load_n(&op->opcode, __ATOMIC_ACQUIRE);
    if (opcode == TIERS_OPCODE || handler == hk.user_opcode_handler)
        return true;
    struct op_slot *s = optable_claim(t, op);
    if (!s)
        return false;
    __atomic_store_n(&s->orig_handler, handler, __ATOMIC_RELAXED);
    __atomic_store_n(&s->orig_opcode, opcode, __ATOMIC_RELAXED);
    __atomic_store_n(&s->kind, (uint8_t)kind, __ATOMIC_RELEASE);
    __atomic_store_n(&op->opcode, (uint8_t)TIERS_OPCODE, __ATOMIC_RELEASE);
    __atomic_store_n(&op->handler, hk.user_opcode_handler, __ATOMIC_RELEASE);
    return true;
}

static bool protected_shared_memory(void)
{
    return zend_ini_long("opcache.protect_memory", sizeof("opcache.protect_memory") - 1, 0) != 0;
}

/* Patches a user function's entry and returns (which tier a call of it
 * belongs to is decided at the call: tier_of()). The RETURNs go first: a
 * function whose entry could not be patched (a table full) is not timed at
 * all, never timed from an entry to no end. */
static void patch_user_function(zend_function *f)
{
    zend_op_array *oa = &f->op_array;
    if (f->type != ZEND_USER_FUNCTION || hk.no_user_fns || !oa->opcodes || !oa->last ||
        (oa->fn_flags & ZEND_ACC_GENERATOR))
        return;
    uint32_t entry = 0;
    while (entry < oa->last && is_recv(oa->opcodes[entry].opcode))
        entry++;
    if (entry == oa->last || oa->opcodes[entry].opcode == TIERS_OPCODE)
        return; /* patched already (here, or by another worker) */
    bool shared = in_shared_memory(oa->opcodes);
    if (hk.no_user_fns || (shared && protected_shared_memory()))
        return; /* (in_shared_memory() finds out when the maps cannot be read) */
    struct optable *t = shared ? &hk.shared_ops : &hk.private_ops;
    for (uint32_t i = entry + 1; i < oa->last; i++)
        if (is_return(oa->opcodes[i].opcode) && !patch_op(&oa->opcodes[i], OP_EXIT, t))
            goto full;
    unsigned kind = OP_ENTRY | (is_return(oa->opcodes[entry].opcode) ? OP_EXIT : 0);
    if (patch_op(&oa->opcodes[entry], kind, t))
        return;
full:
    tiers_rt.skipped++;
}

/* The tier of method lc_name (lower-cased) of ce, or of function lc_name
 * when ce is NULL. */
static int tier_of_name(const zend_class_entry *ce, const zend_string *lc_name)
{
    zend_string *lc_class = ce ? zend_string_tolower(ce->name) : NULL;
    int tier = tiers_tier_of_name(lc_class ? ZSTR_VAL(lc_class) : NULL,
                                  lc_class ? ZSTR_LEN(lc_class) : 0, ZSTR_VAL(lc_name),
                                  ZSTR_LEN(lc_name));
    if (lc_class)
        zend_string_release(lc_class);
    return tier;
}

/* The tier of a call: its function by name, or, for a method, by the name
 * of the class it was called on or of any class between that one and the
 * class that declares it (Job::run inherited by RefreshLinksJob is
 * RefreshLinksJob::run when called on one). Cached for the request. */
static int tier_of(zend_execute_data *ex)
{
    const zend_function *f = ex->func;
    const zend_class_entry *scope = f->common.scope, *called = NULL;
    if (scope)
        called = Z_TYPE(ex->This) == IS_OBJECT ? Z_OBJCE(ex->This) : Z_CE(ex->This);
    for (int i = 0; i < hk.fn_cache_used; i++)
        if (hk.fn_cache[i].opcodes == f->op_array.opcodes && hk.fn_cache[i].called == called)
            return hk.fn_cache[i].tier;
    int tier = -1;
    if (f->common.function_name) {
        zend_string *lc_name = zend_string_tolower(f->common.function_name);
        bool scope_seen = false;
        for (const zend_class_entry *ce = called; ce && tier < 0 && !scope_seen; ce = ce->parent) {
            tier = tier_of_name(ce, lc_name);
            scope_seen = ce == scope;
            if (!(ce->ce_flags & ZEND_ACC_LINKED))
                break; /* parent is still a name */
        }
        if (tier < 0 && !scope_seen)
            tier = tier_of_name(scope, lc_name);
        zend_string_release(lc_name);
    }
    if (hk.fn_cache_used < FN_CACHE) {
        hk.fn_cache[hk.fn_cache_used].opcodes = f->op_array.opcodes;
        hk.fn_cache[hk.fn_cache_used].called = called;
        hk.fn_cache[hk.fn_cache_used++].tier = tier;
    }
    return tier;
}

/* --- tier calls in progress ------------------------------------------ */

static void frame_close(int i, uint64_t now)
{
    struct frame f = hk.stack[i];
    memmove(&hk.stack[i], &hk.stack[i + 1], (size_t)(hk.depth - i - 1) * sizeof hk.stack[0]);
    hk.depth--;
    tiers_rt.active[f.tier]--;
    if (f.outer)
        tiers_call_done(f.tier, now - f.start);
}

static void frame_enter(zend_execute_data *ex)
{
    for (int i = hk.depth - 1; i >= 0; i--)
        if (hk.stack[i].ex == ex)
            return; /* the entry opline is also a loop's head: the same call */
    int tier = tier_of(ex);
    if (tier <= 0)
        return;
    if (hk.depth == STACK_MAX) {
        tiers_rt.skipped++;
        return;
    }
    bool outer = tiers_rt.active[tier]++ == 0;
    hk.stack[hk.depth++] = (struct frame){ex, EG(active_fiber), tier, outer, cpuclock_ticks()};
}

static void frame_leave(zend_execute_data *ex)
{
    for (int i = hk.depth - 1; i >= 0; i--)
        if (hk.stack[i].ex == ex) {
            frame_close(i, cpuclock_ticks());
            return;
        }
}

static bool is_caller_of(zend_execute_data *maybe_caller, zend_execute_data *ex)
{
    int n = 0;
    for (zend_execute_data *p = ex->prev_execute_data; p && n < 100000; p = p->prev_execute_data, n++)
        if (p == maybe_caller)
            return true;
    return false;
}

/* --- the engine's entry points --------------------------------------- */

static const struct op_slot *slot_of(const zend_op *op)
{
    if (hk.last[0].op == op)
        return hk.last[0].slot;
    if (hk.last[1].op == op)
        return hk.last[1].slot;
    const struct op_slot *s = hk.private_ops.used ? optable_find(&hk.private_ops, op) : NULL;
    if (!s)
        s = optable_find(&hk.shared_ops, op);
    if (UNEXPECTED(!s))
        zend_error_noreturn(E_CORE_ERROR, "excimer: request tiers lost a patched opcode");
    hk.last[1] = hk.last[0];
    hk.last[0].op = op;
    hk.last[0].slot = s;
    return s;
}

static int tiers_opcode_handler(zend_execute_data *ex)
{
    const struct op_slot *s = slot_of(ex->opline);
    uint8_t kind = __atomic_load_n(&s->kind, __ATOMIC_ACQUIRE);
    if (tiers_rt.tracing) {
        if (kind & OP_ENTRY)
            frame_enter(ex);
        if (kind & OP_EXIT)
            frame_leave(ex);
    }
    return ZEND_USER_OPCODE_DISPATCH_TO | s->orig_opcode;
}

/* An exception reached frame ex: tier calls open in frames it has left
 * (neither ex nor a caller of ex, on the same fiber's stack: a suspended
 * fiber's calls are not this exception's) ended now. */
static void tiers_exception_seen(zend_execute_data *ex)
{
    if (!hk.depth)
        return;
    uint64_t now = cpuclock_ticks();
    const void *fiber = EG(active_fiber);
    for (int i = hk.depth - 1; i >= 0; i--)
        if (hk.stack[i].fiber == fiber && hk.stack[i].ex != ex && !is_caller_of(hk.stack[i].ex, ex))
            frame_close(i, now);
}

static ZEND_NAMED_FUNCTION(tiers_internal_handler)
{
    const struct internal_rec *r = execute_data->func->internal_function.reserved[hk.reserved];
    int tier = hk.internal_tier[r - hk.internals];
    if (!tiers_rt.tracing || tier <= 0) {
        r->orig(INTERNAL_FUNCTION_PARAM_PASSTHRU);
        return;
    }
    bool outer = tiers_rt.active[tier]++ == 0;
    uint64_t start = outer ? cpuclock_ticks() : 0;
    r->orig(INTERNAL_FUNCTION_PARAM_PASSTHRU);
    tiers_rt.active[tier]--;
    if (outer)
        tiers_call_done(tier, cpuclock_ticks() - start);
}

static void patch_if_tier_function(zend_function *f)
{
    if (f->type != ZEND_USER_FUNCTION || !f->common.function_name)
        return;
    for (int i = 0; i < tiers_rt.nfns; i++) {
        const struct tiers_fn *fn = &tiers_rt.fns[i];
        if (!fn->lc_class && fn->name_len == ZSTR_LEN(f->common.function_name) &&
            !strncasecmp(fn->lc_name, ZSTR_VAL(f->common.function_name), fn->name_len))
            patch_user_function(f);
    }
}

static bool class_named(const zend_class_entry *ce, const char *lc, size_t len)
{
    return ZSTR_LEN(ce->name) == len && !strncasecmp(ZSTR_VAL(ce->name), lc, len);
}

/* The name of ce's parent, whether ce is linked yet or not. */
static const zend_string *parent_name(const zend_class_entry *ce)
{
    if (ce->ce_flags & ZEND_ACC_LINKED)
        return ce->parent ? ce->parent->name : NULL;
    return ce->parent_name;
}

static void pending_drop(int i)
{
    free(hk.pending[i].lc_ancestor);
    hk.pending[i] = hk.pending[--hk.npending];
}

/* Configured method fn is not in ce's own table: it is inherited. From the
 * parent if that is declared already (a linked class's table holds what it
 * inherits), else from the parent when its file is compiled. */
static void look_in_ancestors(int fn_index, const zend_class_entry *ce)
{
    const struct tiers_fn *fn = &tiers_rt.fns[fn_index];
    const zend_string *parent = parent_name(ce);
    if (!parent)
        return;
    zend_string *lc = zend_string_tolower((zend_string *)parent);
    zend_class_entry *pce = zend_hash_find_ptr(EG(class_table), lc);
    zend_function *m = pce ? zend_hash_str_find_ptr(&pce->function_table, fn->lc_name, fn->name_len)
                           : NULL;
    if (m)
        patch_user_function(m);
    else if (!pce && hk.npending < TIERS_FN_MAX) {
        hk.pending[hk.npending].fn = fn_index;
        hk.pending[hk.npending++].lc_ancestor = strndup(ZSTR_VAL(lc), ZSTR_LEN(lc));
    }
    zend_string_release(lc);
}

static void patch_if_tier_class(zend_class_entry *ce)
{
    if (ce->type != ZEND_USER_CLASS)
        return;
    for (int i = 0; i < tiers_rt.nfns; i++) {
        const struct tiers_fn *fn = &tiers_rt.fns[i];
        if (!fn->lc_class || !class_named(ce, fn->lc_class, fn->class_len))
            continue;
        zend_function *m = zend_hash_str_find_ptr(&ce->function_table, fn->lc_name, fn->name_len);
        if (m)
            patch_user_function(m);
        else
            look_in_ancestors(i, ce);
    }
    for (int i = hk.npending - 1; i >= 0; i--) {
        const char *want = hk.pending[i].lc_ancestor;
        if (!want || !class_named(ce, want, strlen(want)))
            continue;
        int fn_index = hk.pending[i].fn;
        const struct tiers_fn *fn = &tiers_rt.fns[fn_index];
        pending_drop(i);
        zend_function *m = zend_hash_str_find_ptr(&ce->function_table, fn->lc_name, fn->name_len);
        if (m)
            patch_user_function(m);
        else
            look_in_ancestors(fn_index, ce);
    }
}

static void scan_new_entries(uint32_t functions_from, uint32_t classes_from)
{
    HashTable *ft = CG(function_table), *ct = CG(class_table);
    if (ft->nNumUsed < functions_from)
        functions_from = 0; /* compacted meanwhile: look at everything */
    if (ct->nNumUsed < classes_from)
        classes_from = 0;
    for (uint32_t i = functions_from; i < ft->nNumUsed; i++)
        if (Z_TYPE(ft->arData[i].val) == IS_PTR)
            patch_if_tier_function(Z_PTR(ft->arData[i].val));
    for (uint32_t i = classes_from; i < ct->nNumUsed; i++)
        if (Z_TYPE(ct->arData[i].val) == IS_PTR)
            patch_if_tier_class(Z_PTR(ct->arData[i].val));
}

/* Every file compiled or loaded from opcache, and every eval()'d string,
 * passes here (hooks.c): the functions and classes it declared are the new
 * entries of the function and class tables. The token holds where they
 * began, +1 so that 0 means "not watching". */
static uint64_t tiers_compile_begin(void)
{
    if (!hk.watching)
        return 0;
    return ((uint64_t)CG(function_table)->nNumUsed << 32 | CG(class_table)->nNumUsed) + 1;
}

static void tiers_compile_end(uint64_t token)
{
    if (token && hk.watching)
        scan_new_entries((uint32_t)((token - 1) >> 32), (uint32_t)(token - 1));
}

static uint64_t tiers_file_begin(zend_file_handle *fh)
{
    (void)fh;
    return tiers_compile_begin();
}

static uint64_t tiers_string_begin(const char *filename)
{
    (void)filename;
    return tiers_compile_begin();
}

/* --- internal functions ---------------------------------------------- */

/* The record of f: another user's too (f is the master's, the same in
 * every worker), a new one out of this user's share. */
static struct internal_rec *internal_claim(const zend_function *f)
{
    struct owner *o = NULL;
    for (int i = 0; i < INTERNALS; i++) {
        const zend_function *k = __atomic_load_n(&hk.internals[i].func, __ATOMIC_ACQUIRE);
        if (!k && !o) {
            o = owner_share(true);
            if (!o || !share_take(&o->internals, OWNER_INTERNALS)) {
                share_full(o ? STR(OWNER_INTERNALS) " internal functions"
                             : STR(OWNERS) " other users have shares");
                return NULL;
            }
        }
        if (!k && __atomic_compare_exchange_n(&hk.internals[i].func, &k, f, false,
                                              __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            hk.internals[i].orig = f->internal_function.handler;
            return &hk.internals[i];
        }
        if (k == f) {
            if (o) /* another process claimed it meanwhile */
                share_give_back(&o->internals);
            return &hk.internals[i];
        }
    }
    if (o)
        share_give_back(&o->internals);
    return NULL;
}

static void swap_internal(zend_function *f, int tier)
{
    if (f->internal_function.handler == tiers_internal_handler) {
        const struct internal_rec *r = f->internal_function.reserved[hk.reserved];
        hk.internal_tier[r - hk.internals] = tier;
        return;
    }
    struct internal_rec *r = internal_claim(f);
    if (!r) {
        tiers_rt.skipped++;
        return;
    }
    int i = (int)(r - hk.internals);
    r->orig = f->internal_function.handler;
    f->internal_function.reserved[hk.reserved] = r;
    hk.internal_tier[i] = tier;
    hk.internal_swapped[i] = true;
    f->internal_function.handler = tiers_internal_handler;
}

static void unswap_internals(void)
{
    for (int i = 0; i < INTERNALS; i++) {
        hk.internal_tier[i] = 0;
        if (!hk.internal_swapped[i])
            continue;
        zend_function *f = (zend_function *)hk.internals[i].func;
        f->internal_function.handler = hk.internals[i].orig;
        hk.internal_swapped[i] = false;
    }
}

/* The function a tiers_fn names, if it is declared now. */
static zend_function *find_declared(const struct tiers_fn *fn)
{
    if (!fn->lc_class)
        return zend_hash_str_find_ptr(EG(function_table), fn->lc_name, fn->name_len);
    zend_class_entry *ce = zend_hash_str_find_ptr(EG(class_table), fn->lc_class, fn->class_len);
    return ce ? zend_hash_str_find_ptr(&ce->function_table, fn->lc_name, fn->name_len) : NULL;
}

/* --- module ------------------------------------------------------------ */

static void *map_shared(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

bool tiers_hook_module_init(void)
{
    hk.reserved = zend_get_resource_handle("excimer");
    hk.shared_ops = (struct optable){map_shared(SHARED_OPS * sizeof(struct op_slot)), SHARED_OPS, 0,
                                     true};
    hk.private_ops = (struct optable){pecalloc(PRIVATE_OPS, sizeof(struct op_slot), 1), PRIVATE_OPS,
                                      0, false};
    hk.internals = map_shared(INTERNALS * sizeof(struct internal_rec));
    hk.owners = map_shared(OWNERS * sizeof(struct owner));
    if (!hk.shared_ops.slots || !hk.internals || !hk.owners || hk.reserved < 0) {
        hk.no_user_fns = "no shared memory";
        return false;
    }
    /* opcache's JIT runs compiled code that never reads a patched opline,
     * and refuses to start when a user opcode handler exists: it wins. */
    zval *jit = cfg_get_entry("opcache.jit_buffer_size", sizeof("opcache.jit_buffer_size") - 1);
    if (jit && Z_TYPE_P(jit) == IS_STRING && strtol(Z_STRVAL_P(jit), NULL, 10) > 0) {
        hk.no_user_fns = "opcache.jit_buffer_size is set (the JIT would not see them)";
        return false;
    }
    const char *why;
    if (!excimer_hooks_own_opcode(TIERS_OPCODE, tiers_opcode_handler, &why)) {
        hk.no_user_fns = "another extension handles opcode 255";
        return false;
    }
    static const excimer_compile_watcher watcher = {
        tiers_file_begin, tiers_compile_end, tiers_string_begin, tiers_compile_end};
    excimer_hooks_watch_compile(&watcher);
    zend_op probe;
    memset(&probe, 0, sizeof probe);
    probe.opcode = TIERS_OPCODE;
    probe.op1_type = probe.op2_type = probe.result_type = IS_UNUSED;
    zend_vm_set_opcode_handler(&probe);
    hk.user_opcode_handler = probe.handler;
    return true;
}

void tiers_hook_module_shutdown(void)
{
    unswap_internals();
    if (hk.private_ops.slots)
        pefree(hk.private_ops.slots, 1);
    hk.private_ops.slots = NULL;
}

void tiers_hook_patched(long *shared, long *private_)
{
    *shared = (long)hk.shared_ops.used;
    *private_ = (long)hk.private_ops.used;
}

bool tiers_hook_share(struct tiers_share *share)
{
    const struct owner *o = owner_share(false);
    *share = (struct tiers_share){(long)geteuid(), 0, OWNER_OPS, 0, OWNER_INTERNALS};
    if (o) {
        share->ops = __atomic_load_n(&o->ops, __ATOMIC_ACQUIRE);
        share->internals = __atomic_load_n(&o->internals, __ATOMIC_ACQUIRE);
    }
    return o != NULL;
}

bool tiers_hook_user_functions(const char **why)
{
    *why = hk.no_user_fns;
    return !hk.no_user_fns;
}

void tiers_hook_apply(void)
{
    unswap_internals();
    hk.fn_cache_used = 0;
    while (hk.npending)
        pending_drop(hk.npending - 1);
    hk.watching = tiers_rt.nfns > 0;
    if (!hk.watching)
        return;
    /* Watching exceptions costs each exception's frames a call: only once
     * this process traces tiers. */
    if (!hk.no_user_fns)
        excimer_hooks_watch_exceptions(tiers_exception_seen);
    for (int i = 0; i < tiers_rt.nfns; i++) {
        zend_function *f = find_declared(&tiers_rt.fns[i]);
        if (!f)
            continue;
        if (f->type == ZEND_INTERNAL_FUNCTION)
            swap_internal(f, tiers_rt.fns[i].tier);
        else
            patch_user_function(f);
    }
}

void tiers_hook_request_end(void)
{
    uint64_t now = cpuclock_ticks();
    while (hk.depth)
        frame_close(hk.depth - 1, now);
    optable_clear(&hk.private_ops);
    hk.fn_cache_used = 0;
    memset(hk.last, 0, sizeof hk.last); /* private oplines die with the request */
    while (hk.npending)
        pending_drop(hk.npending - 1);
}

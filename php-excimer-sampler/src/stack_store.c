/* stack_store.c: the data model of an ExcimerLog (see stack_store.h) and its
 * output formats.
 *
 * Recording a sample (stack_store_add_sample) is the hot path: it runs on
 * the PHP thread at every profiler tick. It walks the execute_data chain
 * iteratively from the leaf, maps each frame to a frame index through an
 * open-addressing table keyed by (code pointer, line), then maps the frame
 * indexes root..leaf to a trie node through a second table keyed by
 * (parent node, frame). No string is formatted or hashed and nothing is
 * allocated except amortised growth of the arrays and tables.
 *
 * Names ("Class::method", "{closure:file(line)}", …) are built only by the
 * output functions, once per distinct frame. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_smart_str.h"

#include "stack_store.h"

/* key_code of the fake root frame of truncated stacks (no code lives at 1),
 * and the file and line Excimer gives that frame. */
#define SS_TRUNCATED_KEY ((uintptr_t)1)
#define SS_TRUNCATED_FILE "excimer fake file"
#define SS_TRUNCATED_LINE 1
#define SS_NOT_FOUND UINT32_MAX

/* ---- open-addressing hash: 64-bit key -> index ----------------------- */

static void ss_hash_init(stack_hash *h, uint32_t size)
{
    h->size = size;
    h->used = 0;
    h->keys = safe_emalloc(size, sizeof(uint64_t), 0);
    h->values = ecalloc(size, sizeof(uint32_t));
}

static void ss_hash_destroy(stack_hash *h)
{
    if (h->keys) {
        efree(h->keys);
        efree(h->values);
    }
    h->keys = NULL;
    h->values = NULL;
    h->size = h->used = 0;
}

static zend_always_inline uint32_t ss_slot(uint64_t key, uint32_t size)
{
    key ^= key >> 31;
    key *= UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(key >> 32) & (size - 1);
}

/* Inserts without checking for an existing key (callers looked first). */
static void ss_hash_put_raw(stack_hash *h, uint64_t key, uint32_t value)
{
    uint32_t i = ss_slot(key, h->size);
    while (h->values[i]) {
        i = (i + 1) & (h->size - 1);
    }
    h->keys[i] = key;
    h->values[i] = value;
    h->used++;
}

/* Keeps the load factor at or below 1/2. */
static void ss_hash_reserve_one(stack_hash *h)
{
    if ((h->used + 1) * 2 <= h->size) {
        return;
    }
    stack_hash old = *h;
    ss_hash_init(h, old.size * 2);
    for (uint32_t i = 0; i < old.size; i++) {
        if (old.values[i]) {
            ss_hash_put_raw(h, old.keys[i], old.values[i]);
        }
    }
    ss_hash_destroy(&old);
}

/* ---- frames ------------------------------------------------------------ */

static zend_always_inline bool ss_str_same(const zend_string *a, const zend_string *b)
{
    if (a == b) {
        return true;
    }
    return a && b && zend_string_equal_content(a, b);
}

static zend_always_inline uint64_t ss_frame_key(uintptr_t code, uint32_t lineno)
{
    return (uint64_t)code ^ ((uint64_t)lineno << 44) ^ (uint64_t)lineno;
}

/* The frame index of (code, lineno, names), appended when new and `create`;
 * SS_NOT_FOUND when absent and !create. The names are compared as well as
 * the code pointer, so a reused address (freed eval or include code, a freed
 * closure of an internal function) never takes over an old frame. */

/* "{closure}", or "Ns\\{closure}" for a closure declared in a namespace. */
static bool is_closure_name(const zend_string *name)
{
    static const char suffix[] = "{closure}";
    size_t n = sizeof suffix - 1;
    return ZSTR_LEN(name) >= n && memcmp(ZSTR_VAL(name) + ZSTR_LEN(name) - n, suffix, n) == 0 &&
           (ZSTR_LEN(name) == n || ZSTR_VAL(name)[ZSTR_LEN(name) - n - 1] == '\\');
}

static uint32_t ss_frame_find(excimer_log_data *log, uintptr_t code, uint32_t lineno,
                              zend_string *filename, zend_string *class_name,
                              zend_string *function_name, const zend_function *func, bool create)
{
    stack_hash *h = &log->frame_index;
    uint64_t key = ss_frame_key(code, lineno);
    uint32_t i = ss_slot(key, h->size);
    uint32_t v;
    while ((v = h->values[i])) {
        if (h->keys[i] == key) {
            const excimer_frame *f = &log->frames[v - 1];
            if (f->key_code == code && f->lineno == lineno
                && (code == SS_TRUNCATED_KEY
                    || (ss_str_same(f->function_name, function_name)
                        && ss_str_same(f->filename, filename)
                        && ss_str_same(f->class_name, class_name)))) {
                return v - 1;
            }
        }
        i = (i + 1) & (h->size - 1);
    }
    if (!create) {
        return SS_NOT_FOUND;
    }

    if (log->nframes == log->frames_cap) {
        log->frames_cap = log->frames_cap ? log->frames_cap * 2 : 64;
        log->frames = safe_erealloc(log->frames, log->frames_cap, sizeof(excimer_frame), 0);
    }
    uint32_t index = log->nframes++;
    excimer_frame *f = &log->frames[index];
    f->key_code = code;
    f->lineno = lineno;
    f->closure_line = 0;
    if (code == SS_TRUNCATED_KEY) {
        /* The original's marker: its own fake file, line 1. */
        f->filename = zend_string_init(SS_TRUNCATED_FILE, sizeof(SS_TRUNCATED_FILE) - 1, 0);
        f->class_name = NULL;
        f->function_name = zend_string_init("excimer_truncated", sizeof("excimer_truncated") - 1, 0);
    } else {
        f->filename = filename ? zend_string_copy(filename) : NULL;
        f->class_name = class_name ? zend_string_copy(class_name) : NULL;
        f->function_name = function_name ? zend_string_copy(function_name) : NULL;
        /* A real closure (not Closure::fromCallable('f'), which keeps f's
         * name). In a namespace PHP names it "Ns\{closure}"; the name stays
         * as the engine has it (lookups compare it), and every output says
         * "{closure}" with the file and first line, as Excimer does. */
        if (func && ZEND_USER_CODE(func->type) && (func->common.fn_flags & ZEND_ACC_CLOSURE)
            && function_name && is_closure_name(function_name)) {
            f->closure_line = func->op_array.line_start;
        }
    }

    ss_hash_reserve_one(h);
    ss_hash_put_raw(h, key, index + 1);
    return index;
}

/* The frame index of an execute_data, or SS_NOT_FOUND (absent and !create,
 * or a frame that cannot be described). */
static zend_always_inline uint32_t ss_frame_of(excimer_log_data *log, const zend_execute_data *ex,
                                               const zend_function *func, bool create)
{
    zend_string *class_name = func->common.scope ? func->common.scope->name : NULL;
    if (ZEND_USER_CODE(func->type)) {
        const zend_op_array *op_array = &func->op_array;
        uint32_t lineno = ex->opline ? ex->opline->lineno : op_array->line_start;
        return ss_frame_find(log, (uintptr_t)op_array->opcodes, lineno, op_array->filename,
                             class_name, op_array->function_name, func, create);
    }
    if (!func->common.function_name) {
        return SS_NOT_FOUND;
    }
    return ss_frame_find(log, (uintptr_t)func, 0, NULL, class_name, func->common.function_name,
                         func, create);
}

/* ---- nodes ------------------------------------------------------------- */

static uint32_t ss_node_find(excimer_log_data *log, uint32_t parent, uint32_t frame, bool create)
{
    stack_hash *h = &log->node_index;
    uint64_t key = ((uint64_t)parent << 32) | frame;
    uint32_t i = ss_slot(key, h->size);
    uint32_t v;
    while ((v = h->values[i])) {
        if (h->keys[i] == key) {
            return v - 1;
        }
        i = (i + 1) & (h->size - 1);
    }
    if (!create) {
        return SS_NOT_FOUND;
    }
    if (log->nnodes == log->nodes_cap) {
        log->nodes_cap *= 2;
        log->nodes = safe_erealloc(log->nodes, log->nodes_cap, sizeof(stack_node), 0);
    }
    uint32_t index = log->nnodes++;
    log->nodes[index].frame = frame;
    log->nodes[index].parent = parent;
    log->nodes[index].last_entry = 0;
    ss_hash_reserve_one(h);
    ss_hash_put_raw(h, key, index + 1);
    return index;
}

/* ---- life cycle ---------------------------------------------------------- */

void stack_store_init(excimer_log_data *log, zend_long max_depth, zend_long max_entries,
                      double period, double epoch)
{
    memset(log, 0, sizeof(*log));
    ss_hash_init(&log->frame_index, 64);
    ss_hash_init(&log->node_index, 256);
    log->nodes_cap = 64;
    log->nodes = safe_emalloc(log->nodes_cap, sizeof(stack_node), 0);
    log->nodes[0].frame = 0;
    log->nodes[0].parent = 0;
    log->nodes[0].last_entry = 0;
    log->nnodes = 1;
    log->max_depth = max_depth;
    log->max_entries = max_entries < 0 ? 0 : max_entries;
    log->period = period;
    log->epoch = epoch;
}

void stack_store_destroy(excimer_log_data *log)
{
    for (uint32_t i = 0; i < log->nframes; i++) {
        excimer_frame *f = &log->frames[i];
        if (f->filename) {
            zend_string_release(f->filename);
        }
        if (f->class_name) {
            zend_string_release(f->class_name);
        }
        if (f->function_name) {
            zend_string_release(f->function_name);
        }
    }
    if (log->frames) {
        efree(log->frames);
    }
    if (log->nodes) {
        efree(log->nodes);
    }
    if (log->entries) {
        efree(log->entries);
    }
    if (log->scratch) {
        efree(log->scratch);
    }
    ss_hash_destroy(&log->frame_index);
    ss_hash_destroy(&log->node_index);
    memset(log, 0, sizeof(*log));
}

static void *ss_dup(const void *src, size_t n, size_t size)
{
    if (!src || n == 0) {
        return NULL;
    }
    void *dst = safe_emalloc(n, size, 0);
    memcpy(dst, src, n * size);
    return dst;
}

static void ss_hash_copy(stack_hash *dst, const stack_hash *src)
{
    *dst = *src;
    dst->keys = ss_dup(src->keys, src->size, sizeof(uint64_t));
    dst->values = ss_dup(src->values, src->size, sizeof(uint32_t));
}

static zend_string *ss_str_copy(zend_string *s)
{
    return s ? zend_string_copy(s) : NULL;
}

void stack_store_copy(excimer_log_data *dst, const excimer_log_data *src)
{
    *dst = *src;
    dst->frames_cap = src->nframes;
    dst->frames = ss_dup(src->frames, src->nframes, sizeof(excimer_frame));
    for (uint32_t i = 0; i < dst->nframes; i++) {
        excimer_frame *f = &dst->frames[i];
        f->filename = ss_str_copy(f->filename);
        f->class_name = ss_str_copy(f->class_name);
        f->function_name = ss_str_copy(f->function_name);
    }
    dst->nodes_cap = src->nnodes; /* never 0: nodes[0] is the sentinel */
    dst->nodes = ss_dup(src->nodes, src->nnodes, sizeof(stack_node));
    dst->entries_cap = src->nentries;
    dst->entries = ss_dup(src->entries, src->nentries, sizeof(stack_entry));
    ss_hash_copy(&dst->frame_index, &src->frame_index);
    ss_hash_copy(&dst->node_index, &src->node_index);
    dst->scratch = NULL;
    dst->scratch_cap = 0;
}

/* ---- recording ----------------------------------------------------------- */

void stack_store_add_sample(excimer_log_data *log, zend_execute_data *ex, zend_long event_count,
                            double timestamp)
{
    /* At the entry cap nothing new is created: a sample either folds into an
     * existing entry of the same stack or is dropped, so memory stays bounded. */
    bool create = !(log->max_entries > 0 && log->nentries >= (zend_ulong)log->max_entries);
    uint32_t depth = 0;        /* frames recorded in scratch */
    zend_long level = 0;       /* execute_data walked, as Excimer counts depth */
    bool truncated = false;

    /* Leaf to root: frame indexes into scratch. As in Excimer, the frames at
     * levels 0..max_depth are kept and anything above the last one becomes
     * the marker; a negative max_depth keeps the leaf only. */
    for (; ex; ex = ex->prev_execute_data, level++) {
        const zend_function *func = ex->func;
        if (func) {
            uint32_t frame = ss_frame_of(log, ex, func, create);
            if (frame == SS_NOT_FOUND && !create) {
                log->dropped_events += event_count;
                return;
            }
            if (frame != SS_NOT_FOUND) { /* else an internal frame without a name */
                if (depth == log->scratch_cap) {
                    log->scratch_cap = log->scratch_cap ? log->scratch_cap * 2 : 64;
                    log->scratch = safe_erealloc(log->scratch, log->scratch_cap,
                                                 sizeof(uint32_t), 0);
                }
                log->scratch[depth++] = frame;
            }
        }
        if (log->max_depth != 0 && level >= log->max_depth && ex->prev_execute_data) {
            truncated = true;
            break;
        }
    }
    if (depth == 0) {
        log->dropped_events += event_count; /* no PHP code was running */
        return;
    }

    /* Root to leaf: the trie node of the stack. */
    uint32_t node = 0;
    if (truncated) {
        uint32_t frame = ss_frame_find(log, SS_TRUNCATED_KEY, SS_TRUNCATED_LINE, NULL, NULL, NULL,
                                       NULL, create);
        node = frame == SS_NOT_FOUND ? SS_NOT_FOUND : ss_node_find(log, 0, frame, create);
    }
    for (uint32_t i = depth; i-- > 0 && node != SS_NOT_FOUND;) {
        node = ss_node_find(log, node, log->scratch[i], create);
    }
    if (node == SS_NOT_FOUND) {
        log->dropped_events += event_count;
        return;
    }

    if (!create) {
        uint32_t last = log->nodes[node].last_entry;
        if (last) {
            log->entries[last - 1].event_count += event_count;
        } else {
            log->dropped_events += event_count;
        }
        return;
    }
    if (log->nentries == log->entries_cap) {
        log->entries_cap = log->entries_cap ? log->entries_cap * 2 : 64;
        log->entries = safe_erealloc(log->entries, log->entries_cap, sizeof(stack_entry), 0);
    }
    stack_entry *entry = &log->entries[log->nentries++];
    entry->node = node;
    entry->event_count = event_count;
    entry->timestamp = timestamp;
    log->nodes[node].last_entry = log->nentries;
}

zend_long stack_store_event_count(const excimer_log_data *log)
{
    zend_long sum = log->dropped_events;
    for (uint32_t i = 0; i < log->nentries; i++) {
        sum += log->entries[i].event_count;
    }
    return sum;
}

/* ---- output helpers ------------------------------------------------------ */

/* The display name of a frame. formatCollapsed and speedscope replace spaces
 * and NUL bytes with '_' (`for_lines`); aggregateByFunction keys by the name
 * as it is, as Excimer does. */
static zend_string *ss_frame_name(const excimer_frame *f, bool for_lines)
{
    smart_str s = {0};
    if (f->closure_line) {
        smart_str_appends(&s, "{closure:");
        if (f->filename) {
            smart_str_append(&s, f->filename);
        }
        smart_str_appendc(&s, '(');
        smart_str_append_unsigned(&s, f->closure_line);
        smart_str_appends(&s, ")}");
    } else if (!f->function_name) {
        if (f->filename) {
            smart_str_append(&s, f->filename);
        }
    } else {
        if (f->class_name) {
            smart_str_append(&s, f->class_name);
            smart_str_appends(&s, "::");
        }
        smart_str_append(&s, f->function_name);
    }
    if (!s.s) {
        return ZSTR_EMPTY_ALLOC();
    }
    smart_str_0(&s);
    if (!for_lines) {
        return smart_str_extract(&s);
    }
    char *p = ZSTR_VAL(s.s);
    for (size_t i = 0; i < ZSTR_LEN(s.s); i++) {
        if (p[i] == ' ' || p[i] == '\0') {
            p[i] = '_';
        }
    }
    return smart_str_extract(&s);
}

/* Distinct frame names: frames differing only in line share a name. */
typedef struct ss_names {
    uint32_t *of_frame;        /* frame index -> name id */
    zend_string **names;       /* name id -> name */
    uint32_t count;            /* number of names */
} ss_names;

static void ss_names_build(ss_names *n, const excimer_log_data *log, bool for_lines)
{
    HashTable index;
    uint32_t size = log->nframes ? log->nframes : 1;
    n->of_frame = safe_emalloc(size, sizeof(uint32_t), 0);
    n->names = safe_emalloc(size, sizeof(zend_string *), 0);
    n->count = 0;
    zend_hash_init(&index, log->nframes, NULL, NULL, 0);
    for (uint32_t i = 0; i < log->nframes; i++) {
        zend_string *name = ss_frame_name(&log->frames[i], for_lines);
        zval *found = zend_hash_find(&index, name);
        if (found) {
            n->of_frame[i] = (uint32_t)Z_LVAL_P(found);
            zend_string_release(name);
        } else {
            zval id;
            ZVAL_LONG(&id, n->count);
            zend_hash_add_new(&index, name, &id);
            n->names[n->count] = name;
            n->of_frame[i] = n->count++;
        }
    }
    zend_hash_destroy(&index);
}

static void ss_names_destroy(ss_names *n)
{
    for (uint32_t i = 0; i < n->count; i++) {
        zend_string_release(n->names[i]);
    }
    efree(n->of_frame);
    efree(n->names);
}

/* A growable array of uint32_t (name ids along one stack). */
typedef struct ss_u32vec {
    uint32_t *v;
    uint32_t n, cap;
} ss_u32vec;

static zend_always_inline void ss_u32vec_push(ss_u32vec *vec, uint32_t x)
{
    if (vec->n == vec->cap) {
        vec->cap = vec->cap ? vec->cap * 2 : 64;
        vec->v = safe_erealloc(vec->v, vec->cap, sizeof(uint32_t), 0);
    }
    vec->v[vec->n++] = x;
}

/* A frame as an array: file, line, class?, function?, closure_line?. */
static void ss_frame_array(const excimer_frame *f, zval *arr)
{
    array_init(arr);
    if (f->filename) {
        add_assoc_str(arr, "file", zend_string_copy(f->filename));
    } else {
        add_assoc_str(arr, "file", ZSTR_EMPTY_ALLOC());
    }
    add_assoc_long(arr, "line", f->lineno);
    if (f->class_name) {
        add_assoc_str(arr, "class", zend_string_copy(f->class_name));
    }
    if (f->closure_line) {
        add_assoc_string(arr, "function", "{closure}");
    } else if (f->function_name) {
        add_assoc_str(arr, "function", zend_string_copy(f->function_name));
    }
    if (f->closure_line) {
        add_assoc_long(arr, "closure_line", f->closure_line);
    }
}

/* ---- formatCollapsed ------------------------------------------------------ */

zend_string *stack_store_format_collapsed(const excimer_log_data *log)
{
    if (log->nentries == 0) {
        return ZSTR_EMPTY_ALLOC();
    }
    ss_names names;
    ss_names_build(&names, log, true);

    /* A second trie over names: stacks that differ only in lines share a
     * name node. Parents precede children in `nodes`, so one pass works. */
    uint32_t *named = safe_emalloc(log->nnodes, sizeof(uint32_t), 0);
    uint32_t *named_parent = safe_emalloc(log->nnodes, sizeof(uint32_t), 0);
    uint32_t *named_name = safe_emalloc(log->nnodes, sizeof(uint32_t), 0);
    uint32_t nnamed = 1;
    stack_hash index;
    ss_hash_init(&index, 256);
    named[0] = 0;
    for (uint32_t i = 1; i < log->nnodes; i++) {
        uint32_t parent = named[log->nodes[i].parent];
        uint32_t name = names.of_frame[log->nodes[i].frame];
        uint64_t key = ((uint64_t)parent << 32) | name;
        uint32_t slot = ss_slot(key, index.size), v;
        uint32_t found = 0;
        while ((v = index.values[slot])) {
            if (index.keys[slot] == key) {
                found = v;
                break;
            }
            slot = (slot + 1) & (index.size - 1);
        }
        if (!found) {
            found = nnamed++;
            named_parent[found] = parent;
            named_name[found] = name;
            ss_hash_reserve_one(&index);
            ss_hash_put_raw(&index, key, found);
        }
        named[i] = found;
    }
    ss_hash_destroy(&index);

    /* Event counts per named stack, in first-seen order. */
    zend_long *counts = ecalloc(nnamed, sizeof(zend_long));
    bool *seen = ecalloc(nnamed, sizeof(bool));
    uint32_t *order = safe_emalloc(nnamed, sizeof(uint32_t), 0);
    uint32_t norder = 0;
    for (uint32_t i = 0; i < log->nentries; i++) {
        uint32_t s = named[log->entries[i].node];
        if (!seen[s]) {
            seen[s] = true;
            order[norder++] = s;
        }
        counts[s] += log->entries[i].event_count;
    }

    smart_str out = {0};
    ss_u32vec chain = {0};
    for (uint32_t k = 0; k < norder; k++) {
        uint32_t s = order[k];
        chain.n = 0;
        for (uint32_t c = s; c; c = named_parent[c]) {
            ss_u32vec_push(&chain, named_name[c]);
        }
        for (uint32_t j = chain.n; j-- > 0;) {
            smart_str_append(&out, names.names[chain.v[j]]);
            if (j) {
                smart_str_appendc(&out, ';');
            }
        }
        smart_str_appendc(&out, ' ');
        smart_str_append_long(&out, counts[s]);
        smart_str_appendc(&out, '\n');
    }
    if (chain.v) {
        efree(chain.v);
    }
    efree(counts);
    efree(seen);
    efree(order);
    efree(named);
    efree(named_parent);
    efree(named_name);
    ss_names_destroy(&names);
    smart_str_0(&out);
    return out.s ? smart_str_extract(&out) : ZSTR_EMPTY_ALLOC();
}

/* ---- getSpeedscopeData ------------------------------------------------------ */

/* Speedscope frame ids, as Excimer numbers them: stacks' frames in the order
 * they were first recorded (root first: trie nodes are created root to
 * leaf), one id per distinct (name, file). Returns node -> id. */
static uint32_t *ss_speedscope_frames(const excimer_log_data *log, zval *frames)
{
    uint32_t *id_of_node = safe_emalloc(log->nnodes, sizeof(uint32_t), 0);
    zend_string **name_of_frame = ecalloc(log->nframes ? log->nframes : 1, sizeof(zend_string *));
    HashTable ids;
    zend_hash_init(&ids, 64, NULL, NULL, 0);
    array_init(frames);
    id_of_node[0] = 0;
    for (uint32_t i = 1; i < log->nnodes; i++) {
        uint32_t fi = log->nodes[i].frame;
        const excimer_frame *f = &log->frames[fi];
        if (!name_of_frame[fi]) {
            name_of_frame[fi] = ss_frame_name(f, true);
        }
        smart_str key = {0};
        smart_str_append(&key, name_of_frame[fi]);
        smart_str_appendc(&key, '\0');
        if (f->filename) {
            smart_str_append(&key, f->filename);
        }
        smart_str_0(&key);
        zval *found = zend_hash_find(&ids, key.s);
        if (!found) {
            zval id, frame;
            ZVAL_LONG(&id, zend_hash_num_elements(Z_ARRVAL_P(frames)));
            found = zend_hash_add_new(&ids, key.s, &id);
            array_init_size(&frame, 2);
            add_assoc_str(&frame, "name", zend_string_copy(name_of_frame[fi]));
            /* Internal functions (ours only) get an empty file, as in getTrace(). */
            add_assoc_str(&frame, "file", f->filename ? zend_string_copy(f->filename)
                                                      : ZSTR_EMPTY_ALLOC());
            add_next_index_zval(frames, &frame);
        }
        id_of_node[i] = (uint32_t)Z_LVAL_P(found);
        smart_str_free(&key);
    }
    for (uint32_t i = 0; i < log->nframes; i++) {
        if (name_of_frame[i]) {
            zend_string_release(name_of_frame[i]);
        }
    }
    efree(name_of_frame);
    zend_hash_destroy(&ids);
    return id_of_node;
}

void stack_store_speedscope(const excimer_log_data *log, zval *return_value)
{
    zend_long period_ns = (zend_long)(log->period * 1e9 + 0.5);
    zval frames, samples, weights;
    uint32_t *id_of_node = ss_speedscope_frames(log, &frames);

    array_init_size(&samples, log->nentries);
    array_init_size(&weights, log->nentries);
    ss_u32vec chain = {0};
    for (uint32_t i = 0; i < log->nentries; i++) {
        const stack_entry *e = &log->entries[i];
        chain.n = 0;
        for (uint32_t node = e->node; node; node = log->nodes[node].parent) {
            ss_u32vec_push(&chain, id_of_node[node]);
        }
        zval sample;
        array_init_size(&sample, chain.n);
        for (uint32_t j = chain.n; j-- > 0;) {
            add_next_index_long(&sample, chain.v[j]);
        }
        add_next_index_zval(&samples, &sample);
        add_next_index_long(&weights, e->event_count * period_ns);
    }
    if (chain.v) {
        efree(chain.v);
    }
    efree(id_of_node);
    zend_long end_ns = 0;
    if (log->nentries) {
        double span = log->entries[log->nentries - 1].timestamp - log->entries[0].timestamp;
        end_ns = (zend_long)(span * 1e9 + 0.5);
    }

    zval profile, profiles, shared;
    array_init(&profile);
    add_assoc_string(&profile, "type", "sampled");
    add_assoc_string(&profile, "name", "");
    add_assoc_string(&profile, "unit", "nanoseconds");
    add_assoc_long(&profile, "startValue", 0);
    add_assoc_long(&profile, "endValue", end_ns);
    add_assoc_zval(&profile, "samples", &samples);
    add_assoc_zval(&profile, "weights", &weights);
    array_init_size(&profiles, 1);
    add_next_index_zval(&profiles, &profile);
    array_init_size(&shared, 1);
    add_assoc_zval(&shared, "frames", &frames);

    array_init(return_value);
    add_assoc_string(return_value, "$schema", "https://www.speedscope.app/file-format-schema.json");
    add_assoc_string(return_value, "exporter", "Excimer");
    add_assoc_zval(return_value, "shared", &shared);
    add_assoc_zval(return_value, "profiles", &profiles);
}

/* ---- aggregateByFunction ---------------------------------------------------- */

typedef struct ss_aggr {
    zend_long self, inclusive;
    uint32_t stamp;            /* last entry (index + 1) that counted it inclusively */
    uint32_t first_seen;       /* order of first appearance + 1, 0 = never */
    uint32_t first_frame;      /* the frame it was first seen as: its file and line are shown */
} ss_aggr;

/* qsort_r order: inclusive descending, then first appearance. */
static int ss_aggr_cmp(const void *a, const void *b, void *arg)
{
    const ss_aggr *aggr = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (aggr[x].inclusive != aggr[y].inclusive) {
        return aggr[x].inclusive > aggr[y].inclusive ? -1 : 1;
    }
    return aggr[x].first_seen < aggr[y].first_seen ? -1 : 1;
}

void stack_store_aggregate_by_function(const excimer_log_data *log, zval *return_value)
{
    ss_names names;
    ss_names_build(&names, log, false);
    ss_aggr *aggr = ecalloc(names.count ? names.count : 1, sizeof(ss_aggr));
    uint32_t *order = safe_emalloc(names.count ? names.count : 1, sizeof(uint32_t), 0);
    uint32_t norder = 0;

    for (uint32_t i = 0; i < log->nentries; i++) {
        const stack_entry *e = &log->entries[i];
        bool leaf = true;
        for (uint32_t node = e->node; node; node = log->nodes[node].parent) {
            uint32_t frame = log->nodes[node].frame;
            uint32_t id = names.of_frame[frame];
            ss_aggr *a = &aggr[id];
            if (!a->first_seen) {
                order[norder++] = id;
                a->first_seen = norder;
                a->first_frame = frame;
            }
            if (leaf) {
                a->self += e->event_count;
                leaf = false;
            }
            if (a->stamp != i + 1) { /* recursion counts once per sample */
                a->stamp = i + 1;
                a->inclusive += e->event_count;
            }
        }
    }
    qsort_r(order, norder, sizeof(uint32_t), ss_aggr_cmp, aggr);

    array_init_size(return_value, norder);
    for (uint32_t k = 0; k < norder; k++) {
        uint32_t id = order[k];
        zval info;
        ss_frame_array(&log->frames[aggr[id].first_frame], &info);
        add_assoc_long(&info, "self", aggr[id].self);
        add_assoc_long(&info, "inclusive", aggr[id].inclusive);
        zend_symtable_update(Z_ARRVAL_P(return_value), names.names[id], &info);
    }
    efree(aggr);
    efree(order);
    ss_names_destroy(&names);
}

/* ---- getTrace ------------------------------------------------------------- */

void stack_store_entry_trace(const excimer_log_data *log, uint32_t index, zval *return_value)
{
    array_init(return_value);
    if (index >= log->nentries) {
        return;
    }
    for (uint32_t node = log->entries[index].node; node; node = log->nodes[node].parent) {
        zval frame;
        ss_frame_array(&log->frames[log->nodes[node].frame], &frame);
        add_next_index_zval(return_value, &frame);
    }
}

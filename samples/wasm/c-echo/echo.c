/*
 * c-echo: an AIOS guest written WITHOUT any SDK, in freestanding C (no libc),
 * speaking the MessagePack encoding of the guest ABI v1 (docs/abi.md). It
 * proves the ABI is language-neutral and is the fast guest of the echo
 * benchmarks: echo copies the MessagePack bytes of params.value into the
 * result without decoding them, so the guest's own work is a bounds-checked
 * scan of the call.
 *
 *   clang --target=wasm32 -nostdlib -O2 -Wl,--no-entry -Wl,--export-dynamic \
 *         -o c-echo.wasm echo.c
 *
 * Exports: memory, aios_alloc (bump allocator), aios_free (no-op),
 * aios_abi_version, aios_register, aios_call. Import: aios.log.
 *
 * Tools (the conformance table's shapes):
 *   c-echo {"value": any}          -> {"value": <the same bytes>}
 *   c-add  {"a": int, "b": int}    -> {"sum": a+b}
 *
 * Every input is validated: a malformed, truncated or non-JSON-value
 * (bin, ext, 0xc1, non-string map key, nesting past 512) MessagePack call is
 * answered with an InvalidRequest/InvalidParams error result; the guest
 * never traps on bad input. The scanner is iterative (no recursion), so deep
 * nesting cannot overflow the stack.
 */
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

#define EXPORT(name) __attribute__((export_name(name)))
#define IMPORT(mod, name) __attribute__((import_module(mod), import_name(name)))

IMPORT("aios", "log") void aios_log(u32 level, const char *msg, u32 len);

/* ---- memory ------------------------------------------------------------ */

extern unsigned char __heap_base;
static u32 heap_top;

static u32 memory_bytes(void) { return (u32)__builtin_wasm_memory_size(0) * 65536u; }

/* aios_alloc: a bump allocator. The host allocates its call buffer once and
 * reuses it; the guest's result buffer is reused too, so a steady stream of
 * calls allocates nothing. */
EXPORT("aios_alloc") void *aios_alloc(u32 n) {
    if (!heap_top) heap_top = (u32)&__heap_base;
    u32 p = (heap_top + 7u) & ~7u;
    u32 end = p + n;
    if (end < p) return 0;
    if (end > memory_bytes()) {
        u32 pages = (end - memory_bytes() + 65535u) / 65536u;
        if (__builtin_wasm_memory_grow(0, pages) == (unsigned long)-1) return 0;
    }
    heap_top = end;
    return (void *)p;
}

/* A bump allocator frees nothing; the export exists so hosts may call it. */
EXPORT("aios_free") void aios_free(void *p, u32 n) { (void)p; (void)n; }

EXPORT("aios_abi_version") u32 aios_abi_version(void) { return 1; }

static u64 pack(const void *p, u32 n) { return ((u64)(u32)p << 32) | n; }

static u32 slen(const char *s) { u32 n = 0; while (s[n]) n++; return n; }

static void copy(u8 *d, const u8 *s, u32 n) { for (u32 j = 0; j < n; j++) d[j] = s[j]; }

static int same(const u8 *a, u32 an, const char *b) {
    u32 bn = slen(b);
    if (an != bn) return 0;
    for (u32 j = 0; j < an; j++) if (a[j] != (u8)b[j]) return 0;
    return 1;
}

/* ---- MessagePack writer ------------------------------------------------ */

typedef struct { u8 *p; u32 len, cap; int oom; } wbuf;

static int reserve(wbuf *w, u32 n) {
    if (w->oom) return 0;
    if (w->len + n < w->len) { w->oom = 1; return 0; }
    if (w->len + n <= w->cap) return 1;
    u32 cap = (w->len + n) * 2;
    if (cap < w->len + n) cap = w->len + n;
    if (cap < 256) cap = 256;
    u8 *q = aios_alloc(cap);
    if (!q) { w->oom = 1; return 0; }
    copy(q, w->p, w->len);
    w->p = q; /* the bump allocator cannot free the old buffer */
    w->cap = cap;
    return 1;
}
static void w_raw(wbuf *w, const u8 *s, u32 n) {
    if (!reserve(w, n)) return;
    copy(w->p + w->len, s, n);
    w->len += n;
}
static void w_byte(wbuf *w, u8 b) { if (reserve(w, 1)) w->p[w->len++] = b; }
static void w_be(wbuf *w, u64 v, u32 bytes) {
    if (!reserve(w, bytes)) return;
    for (u32 j = 0; j < bytes; j++) w->p[w->len + j] = (u8)(v >> (8 * (bytes - 1 - j)));
    w->len += bytes;
}
static void w_map(wbuf *w, u32 n) {
    if (n < 16) w_byte(w, 0x80 | n); else if (n < 65536) { w_byte(w, 0xde); w_be(w, n, 2); } else { w_byte(w, 0xdf); w_be(w, n, 4); }
}
static void w_arr(wbuf *w, u32 n) {
    if (n < 16) w_byte(w, 0x90 | n); else if (n < 65536) { w_byte(w, 0xdc); w_be(w, n, 2); } else { w_byte(w, 0xdd); w_be(w, n, 4); }
}
static void w_strhdr(wbuf *w, u32 n) {
    if (n < 32) w_byte(w, 0xa0 | n);
    else if (n < 256) { w_byte(w, 0xd9); w_be(w, n, 1); }
    else if (n < 65536) { w_byte(w, 0xda); w_be(w, n, 2); }
    else { w_byte(w, 0xdb); w_be(w, n, 4); }
}
static void w_strn(wbuf *w, const char *s, u32 n) {
    w_strhdr(w, n);
    w_raw(w, (const u8 *)s, n);
}
static void w_str(wbuf *w, const char *s) { w_strn(w, s, slen(s)); }
static void w_bool(wbuf *w, int b) { w_byte(w, b ? 0xc3 : 0xc2); }
static void w_int(wbuf *w, i64 v) {
    if (v >= 0 && v < 128) w_byte(w, (u8)v);
    else if (v < 0 && v >= -32) w_byte(w, (u8)(0xe0 | (v + 32)));
    else if (v >= -128 && v < 128) { w_byte(w, 0xd0); w_be(w, (u64)v, 1); }
    else if (v >= -32768 && v < 32768) { w_byte(w, 0xd1); w_be(w, (u64)v, 2); }
    else if (v >= -2147483647LL - 1 && v <= 2147483647LL) { w_byte(w, 0xd2); w_be(w, (u64)v, 4); }
    else { w_byte(w, 0xd3); w_be(w, (u64)v, 8); }
}

/* ---- MessagePack reader ------------------------------------------------ */

typedef struct { const u8 *p; u32 i, n; const char *bad; } rd;

#define MAX_DEPTH 512

static int fail(rd *r, const char *why) { if (!r->bad) r->bad = why; return 0; }

static int need(rd *r, u32 k) { return k <= r->n - r->i ? 1 : fail(r, "truncated MessagePack"); }

static u64 be(rd *r, u32 bytes) { /* need() already checked */
    u64 v = 0;
    for (u32 j = 0; j < bytes; j++) v = (v << 8) | r->p[r->i + j];
    r->i += bytes;
    return v;
}

/* str reads a string header and returns its bytes (kind 's'), or fails. */
static int str(rd *r, const u8 **s, u32 *len) {
    if (!need(r, 1)) return 0;
    u8 c = r->p[r->i++];
    u32 n;
    if (c >= 0xa0 && c <= 0xbf) n = c & 0x1f;
    else if (c >= 0xd9 && c <= 0xdb) {
        u32 b = 1u << (c - 0xd9);
        if (!need(r, b)) return 0;
        n = (u32)be(r, b);
    } else return fail(r, "a map key or tool name is not a string");
    if (!need(r, n)) return 0;
    *s = r->p + r->i;
    *len = n;
    r->i += n;
    return 1;
}

/* map reads a map header. */
static int map(rd *r, u32 *n) {
    if (!need(r, 1)) return 0;
    u8 c = r->p[r->i++];
    if (c >= 0x80 && c <= 0x8f) { *n = c & 0x0f; return 1; }
    if (c == 0xde || c == 0xdf) {
        u32 b = c == 0xde ? 2 : 4;
        if (!need(r, b)) return 0;
        *n = (u32)be(r, b);
        return 1;
    }
    return fail(r, "not a map");
}

/* skip steps over one JSON value, validating it: every length in bounds,
 * map keys are strings, no bin/ext/0xc1, nesting at most MAX_DEPTH. It is
 * iterative: left[d] counts the items still to read at depth d (for a map,
 * keys and values; an even count means a key comes next). */
static u32 left[MAX_DEPTH + 1];
static u8 is_map[MAX_DEPTH + 1];

static int skip(rd *r) {
    int d = 0;
    left[0] = 1;
    is_map[0] = 0;
    for (;;) {
        while (left[d] == 0) {
            if (d == 0) return 1;
            d--;
        }
        int key = is_map[d] && (left[d] % 2 == 0);
        left[d]--;
        if (!need(r, 1)) return 0;
        u8 c = r->p[r->i];
        if (key) {
            const u8 *s;
            u32 n;
            if (!str(r, &s, &n)) return 0;
            continue;
        }
        r->i++;
        u64 items = 0, bytes = 0;
        int container = 0, m = 0;
        if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) continue;
        else if (c >= 0xa0 && c <= 0xbf) bytes = c & 0x1f;
        else if (c >= 0x90 && c <= 0x9f) { container = 1; items = c & 0x0f; }
        else if (c >= 0x80 && c <= 0x8f) { container = 1; m = 1; items = 2u * (c & 0x0f); }
        else switch (c) {
            case 0xcc: case 0xd0: bytes = 1; break;
            case 0xcd: case 0xd1: bytes = 2; break;
            case 0xce: case 0xd2: case 0xca: bytes = 4; break;
            case 0xcf: case 0xd3: case 0xcb: bytes = 8; break;
            case 0xd9: case 0xda: case 0xdb: {
                u32 b = 1u << (c - 0xd9);
                if (!need(r, b)) return 0;
                bytes = be(r, b);
                break;
            }
            case 0xdc: case 0xdd: {
                u32 b = c == 0xdc ? 2 : 4;
                if (!need(r, b)) return 0;
                container = 1; items = be(r, b);
                break;
            }
            case 0xde: case 0xdf: {
                u32 b = c == 0xde ? 2 : 4;
                if (!need(r, b)) return 0;
                container = 1; m = 1; items = 2 * be(r, b);
                break;
            }
            case 0xc4: case 0xc5: case 0xc6: return fail(r, "bin is not a JSON value");
            case 0xc1: return fail(r, "0xc1 is not MessagePack");
            default: return fail(r, "MessagePack extension types are not JSON values");
        }
        if (!container) {
            if (bytes > r->n - r->i) return fail(r, "truncated MessagePack");
            /* NaN and infinities (exponent all ones) are not JSON numbers. */
            if ((c == 0xca && (r->p[r->i] & 0x7f) == 0x7f && (r->p[r->i + 1] & 0x80)) ||
                (c == 0xcb && (r->p[r->i] & 0x7f) == 0x7f && (r->p[r->i + 1] & 0xf0) == 0xf0))
                return fail(r, "NaN and infinities are not JSON numbers");
            r->i += (u32)bytes;
            continue;
        }
        if (items == 0) continue;
        /* Each item takes at least one byte: a count beyond the rest of the
         * message is truncated, whatever its nesting. */
        if (items > r->n - r->i) return fail(r, "truncated MessagePack");
        if (d == MAX_DEPTH) return fail(r, "value nested deeper than 512 levels");
        d++;
        left[d] = (u32)items;
        is_map[d] = (u8)m;
    }
}

/* field finds key in the (already validated) map at r and leaves r at its
 * value. */
static int field(rd r, const char *key, rd *out) {
    u32 n;
    if (!map(&r, &n)) return 0;
    for (u32 k = 0; k < n; k++) {
        const u8 *s;
        u32 sl;
        if (!str(&r, &s, &sl)) return 0;
        if (same(s, sl, key)) { *out = r; return 1; }
        if (!skip(&r)) return 0;
    }
    return 0;
}

/* integer reads a MessagePack integer (or an integral float64) as int64. */
static int integer(rd *r, i64 *v) {
    if (!need(r, 1)) return 0;
    u8 c = r->p[r->i++];
    if (c <= 0x7f) { *v = c; return 1; }
    if (c >= 0xe0) { *v = (i64)c - 256; return 1; }
    switch (c) {
    case 0xcc: case 0xcd: case 0xce: case 0xcf: {
        u32 b = 1u << (c - 0xcc);
        if (!need(r, b)) return 0;
        u64 u = be(r, b);
        if (u > 0x7fffffffffffffffULL) return fail(r, "integer out of the int64 range");
        *v = (i64)u;
        return 1;
    }
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
        u32 b = 1u << (c - 0xd0);
        if (!need(r, b)) return 0;
        u64 u = be(r, b);
        u32 shift = 64 - 8 * b; /* sign-extend */
        *v = (i64)(u << shift) >> shift;
        return 1;
    }
    case 0xcb: {
        if (!need(r, 8)) return 0;
        u64 u = be(r, 8);
        double d;
        __builtin_memcpy(&d, &u, 8);
        if (!(d >= -9.2e18 && d <= 9.2e18) || (double)(i64)d != d) return fail(r, "not an integer");
        *v = (i64)d;
        return 1;
    }
    }
    return fail(r, "not an integer");
}

/* ---- results ------------------------------------------------------------ */

static wbuf out;       /* the result buffer, reused across calls */
static u8 errmem[512]; /* error results never allocate */

static u64 error(const char *code, const char *msg, const char *detail) {
    wbuf e = {errmem, 0, sizeof errmem, 0};
    u32 ml = slen(msg), dl = detail ? slen(detail) : 0;
    if (ml + dl > 400) dl = 0;
    w_map(&e, 1);
    w_str(&e, "error");
    w_map(&e, 2);
    w_str(&e, "code");
    w_str(&e, code);
    w_str(&e, "message");
    if (dl) {
        w_strhdr(&e, ml + 2 + dl);
        w_raw(&e, (const u8 *)msg, ml);
        w_raw(&e, (const u8 *)": ", 2);
        w_raw(&e, (const u8 *)detail, dl);
    } else {
        w_strn(&e, msg, ml);
    }
    return pack(e.p, e.len);
}

static u64 result(void) {
    if (out.oom) {
        out.oom = 0;
        out.len = 0;
        return error("ProviderError", "c-echo: out of memory building the result", 0);
    }
    return pack(out.p, out.len);
}

/* ---- registration -------------------------------------------------------- */

static void w_kstr(wbuf *w, const char *k, const char *v) { w_str(w, k); w_str(w, v); }

EXPORT("aios_register") u64 aios_register(void) {
    static wbuf reg;
    if (reg.len) return pack(reg.p, reg.len);
    wbuf *w = &reg;
    w_map(w, 3);
    w_str(w, "format"); w_int(w, 1);
    w_str(w, "provider");
    w_map(w, 3);
    w_kstr(w, "id", "org.aios.samples.c-echo");
    w_kstr(w, "name", "C echo (no SDK)");
    w_kstr(w, "version", "1.0.0");
    w_str(w, "tools");
    w_arr(w, 2);

    w_map(w, 4);
    w_kstr(w, "name", "c-echo");
    w_kstr(w, "description", "Returns {\"value\": params.value} (freestanding C guest, MessagePack ABI).");
    w_str(w, "idempotent"); w_bool(w, 1);
    w_str(w, "parameters");
    w_map(w, 3);
    w_kstr(w, "type", "object");
    w_str(w, "properties"); w_map(w, 1); w_str(w, "value"); w_map(w, 0);
    w_str(w, "required"); w_arr(w, 1); w_str(w, "value");

    w_map(w, 4);
    w_kstr(w, "name", "c-add");
    w_kstr(w, "description", "Adds two integers (freestanding C guest).");
    w_str(w, "idempotent"); w_bool(w, 1);
    w_str(w, "parameters");
    w_map(w, 4);
    w_kstr(w, "type", "object");
    w_str(w, "properties");
    w_map(w, 2);
    w_str(w, "a"); w_map(w, 1); w_kstr(w, "type", "integer");
    w_str(w, "b"); w_map(w, 1); w_kstr(w, "type", "integer");
    w_str(w, "required"); w_arr(w, 2); w_str(w, "a"); w_str(w, "b");
    w_str(w, "additionalProperties"); w_bool(w, 0);

    if (reg.oom) return 0; /* the host reports an empty register */
    return pack(reg.p, reg.len);
}

/* ---- calls ---------------------------------------------------------------- */

EXPORT("aios_call") u64 aios_call(const u8 *msg, u32 len) {
    static int logged;
    if (!logged) {
        static const char hello[] = "c-echo: first call on this instance (MessagePack ABI)";
        aios_log(0, hello, sizeof hello - 1);
        logged = 1;
    }

    /* One pass over the call: validates all of it and finds tool and
     * params. Unknown keys are skipped (validated) as the ABI asks. */
    rd r = {msg, 0, len, 0}, params = {0};
    const u8 *tool = 0;
    u32 tool_len = 0, n;
    int have_params = 0;
    if (!map(&r, &n)) return error("InvalidRequest", "c-echo: the call is not a MessagePack map", r.bad);
    for (u32 k = 0; k < n; k++) {
        const u8 *key;
        u32 kl;
        if (!str(&r, &key, &kl)) return error("InvalidRequest", "c-echo: malformed MessagePack call", r.bad);
        if (same(key, kl, "tool")) {
            if (!str(&r, &tool, &tool_len)) return error("InvalidRequest", "c-echo: call.tool is not a string", r.bad);
            continue;
        }
        if (same(key, kl, "params")) { params = r; have_params = 1; }
        if (!skip(&r)) return error("InvalidRequest", "c-echo: malformed MessagePack call", r.bad);
    }
    if (r.i != r.n) return error("InvalidRequest", "c-echo: trailing bytes after the MessagePack call", 0);
    if (!tool || !have_params) return error("InvalidRequest", "c-echo: call without tool or params", 0);
    u32 pn;
    rd pm = params;
    if (!map(&pm, &pn)) return error("InvalidParams", "c-echo: params is not a map", 0);

    out.len = 0;
    if (same(tool, tool_len, "c-echo")) {
        rd v;
        if (!field(params, "value", &v)) return error("InvalidParams", "c-echo: params.value is required", 0);
        u32 start = v.i;
        skip(&v); /* validated above: cannot fail */
        w_map(&out, 1);
        w_str(&out, "value");
        w_map(&out, 1);
        w_str(&out, "value");
        w_raw(&out, msg + start, v.i - start);
        return result();
    }
    if (same(tool, tool_len, "c-add")) {
        rd a, b;
        i64 x, y, sum;
        if (!field(params, "a", &a) || !field(params, "b", &b))
            return error("InvalidParams", "c-add: params a and b are required", 0);
        if (!integer(&a, &x) || !integer(&b, &y))
            return error("InvalidParams", "c-add: a and b must be integers", a.bad ? a.bad : b.bad);
        if (__builtin_add_overflow(x, y, &sum))
            return error("InvalidParams", "c-add: a+b overflows a 64-bit integer", 0);
        w_map(&out, 1);
        w_str(&out, "value");
        w_map(&out, 1);
        w_str(&out, "sum");
        w_int(&out, sum);
        return result();
    }
    return error("NotFound", "c-echo: unknown tool", 0);
}

/*
 * c-echo: an AIOS guest written WITHOUT any SDK, in freestanding C, speaking
 * the JSON encoding of the guest ABI v1 (docs/abi.md). It proves the ABI is
 * language-neutral: memory, a bump allocator, aios_register, aios_call, and
 * one host import (aios.log).
 *
 *   clang --target=wasm32 -nostdlib -O2 -Wl,--no-entry -Wl,--export-dynamic \
 *         -o c-echo.wasm echo.c
 *
 * Tools: c-echo {"value": any} -> {"value": any}; c-add {"a": int, "b": int} -> {"sum": int}.
 */
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

#define EXPORT(name) __attribute__((export_name(name)))
#define IMPORT(mod, name) __attribute__((import_module(mod), import_name(name)))

IMPORT("aios", "log") void aios_log(u32 level, const char *msg, u32 len);

extern unsigned char __heap_base;
static u32 heap_top;

static u32 memory_bytes(void) { return (u32)__builtin_wasm_memory_size(0) * 65536u; }

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

static u64 pack(const char *p, u32 n) { return ((u64)(u32)p << 32) | n; }

static u32 slen(const char *s) { u32 n = 0; while (s[n]) n++; return n; }

static const char REGISTER[] =
    "{\"format\":1,\"provider\":{\"id\":\"org.aios.samples.c-echo\",\"name\":\"C echo (no SDK)\","
    "\"version\":\"1.0.0\"},\"tools\":["
    "{\"name\":\"c-echo\",\"description\":\"Returns params.value unchanged (freestanding C guest, JSON ABI).\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"value\":{}},\"required\":[\"value\"]}},"
    "{\"name\":\"c-add\",\"description\":\"Adds two integers (freestanding C guest).\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
    "\"required\":[\"a\",\"b\"]}}]}";

EXPORT("aios_register") u64 aios_register(void) { return pack(REGISTER, sizeof(REGISTER) - 1); }

/* ---- a minimal JSON scanner: enough to find keys and skip values ---- */
typedef struct { const char *s; u32 i, n; int bad; } scan;

static void ws(scan *c) {
    while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\n' || c->s[c->i] == '\r' || c->s[c->i] == '\t')) c->i++;
}
static void skip_string(scan *c) {
    c->i++; /* opening quote */
    while (c->i < c->n && c->s[c->i] != '"') c->i += (c->s[c->i] == '\\') ? 2 : 1;
    if (c->i >= c->n) { c->bad = 1; return; }
    c->i++;
}
static void skip_value(scan *c) {
    ws(c);
    if (c->i >= c->n) { c->bad = 1; return; }
    char ch = c->s[c->i];
    if (ch == '"') { skip_string(c); return; }
    if (ch == '{' || ch == '[') {
        int depth = 0;
        while (c->i < c->n && !c->bad) {
            ch = c->s[c->i];
            if (ch == '"') { skip_string(c); continue; }
            if (ch == '{' || ch == '[') depth++;
            if (ch == '}' || ch == ']') { depth--; if (depth == 0) { c->i++; return; } }
            c->i++;
        }
        c->bad = 1;
        return;
    }
    while (c->i < c->n && c->s[c->i] != ',' && c->s[c->i] != '}' && c->s[c->i] != ']') c->i++;
}
/* find: inside the object starting at c->i, position c at the value of key. */
static int find_key(scan c, const char *key, scan *out) {
    u32 kl = slen(key);
    ws(&c);
    if (c.i >= c.n || c.s[c.i] != '{') return 0;
    c.i++;
    for (;;) {
        ws(&c);
        if (c.i >= c.n || c.s[c.i] != '"') return 0;
        u32 k0 = c.i + 1;
        skip_string(&c);
        if (c.bad) return 0;
        u32 k1 = c.i - 1;
        ws(&c);
        if (c.i >= c.n || c.s[c.i] != ':') return 0;
        c.i++;
        ws(&c);
        int match = (k1 - k0 == kl);
        for (u32 j = 0; match && j < kl; j++) match = c.s[k0 + j] == key[j];
        if (match) { *out = c; return 1; }
        skip_value(&c);
        ws(&c);
        if (c.bad || c.i >= c.n || c.s[c.i] != ',') return 0;
        c.i++;
    }
}
static int parse_int(scan c, i64 *v) {
    int neg = 0, any = 0;
    i64 x = 0;
    if (c.i < c.n && c.s[c.i] == '-') { neg = 1; c.i++; }
    while (c.i < c.n && c.s[c.i] >= '0' && c.s[c.i] <= '9') { x = x * 10 + (c.s[c.i] - '0'); c.i++; any = 1; }
    if (c.i < c.n && (c.s[c.i] == '.' || c.s[c.i] == 'e' || c.s[c.i] == 'E')) return 0;
    *v = neg ? -x : x;
    return any;
}

/* ---- output ---- */
static char *out;
static u32 out_len, out_cap;

static void put(const char *p, u32 n) {
    if (out_len + n > out_cap) {
        u32 cap = (out_len + n) * 2;
        char *q = aios_alloc(cap);
        if (!q) return;
        for (u32 j = 0; j < out_len; j++) q[j] = out[j];
        out = q;
        out_cap = cap;
    }
    for (u32 j = 0; j < n; j++) out[out_len + j] = p[j];
    out_len += n;
}
static void puts_(const char *s) { put(s, slen(s)); }
static void put_int(i64 v) {
    char b[24];
    int k = 24;
    u64 u = v < 0 ? (u64)(-(v + 1)) + 1 : (u64)v;
    do { b[--k] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) b[--k] = '-';
    put(b + k, 24 - k);
}
static u64 error(const char *code, const char *msg) {
    out_len = 0;
    puts_("{\"error\":{\"code\":\""); puts_(code); puts_("\",\"message\":\""); puts_(msg); puts_("\"}}");
    return pack(out, out_len);
}

EXPORT("aios_call") u64 aios_call(const char *msg, u32 len) {
    scan c = {msg, 0, len, 0}, tool, params, v;
    if (!find_key(c, "tool", &tool) || !find_key(c, "params", &params))
        return error("InvalidRequest", "c-echo: call without tool or params");
    static const char log_msg[] = "c-echo: serving a call";
    aios_log(0, log_msg, sizeof(log_msg) - 1);
    out_len = 0;
    if (tool.i + 8 <= len && tool.s[tool.i + 3] == 'e') { /* "c-echo" */
        if (!find_key(params, "value", &v)) return error("InvalidParams", "c-echo: params.value is required");
        u32 start = v.i;
        skip_value(&v);
        if (v.bad) return error("InvalidParams", "c-echo: malformed params.value");
        puts_("{\"value\":{\"value\":");
        put(msg + start, v.i - start);
        puts_("}}");
        return pack(out, out_len);
    }
    if (tool.i + 7 <= len && tool.s[tool.i + 3] == 'a') { /* "c-add" */
        scan a, b;
        i64 x, y;
        if (!find_key(params, "a", &a) || !find_key(params, "b", &b) || !parse_int(a, &x) || !parse_int(b, &y))
            return error("InvalidParams", "c-add: a and b must be integers");
        puts_("{\"value\":{\"sum\":");
        put_int(x + y);
        puts_("}}");
        return pack(out, out_len);
    }
    return error("NotFound", "c-echo: unknown tool");
}

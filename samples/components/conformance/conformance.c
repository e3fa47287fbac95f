// The component runtime's conformance provider, in C without libc.
#include "../common/cabi.h"

// Provider metadata (id, capabilities, schema overrides) is in aios-provider.json;
// build.sh appends it to the core module as the "aios-provider" custom section.

__attribute__((import_module("aios:sdk/tools@0.1.0"), import_name("call-tool")))
void host_call_tool(const char *name, size_t name_len, const char *params, size_t params_len, u32 *ret);

__attribute__((import_module("wasi:clocks/monotonic-clock@0.2.0"), import_name("now")))
u64 host_now(void);

// --- a tiny JSON scanner: spans of top-level object members ---
static const char *ws(const char *p, const char *e) { while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++; return p; }
static const char *skip_str(const char *p, const char *e) { // p at opening quote
  for (p++; p < e; p++) { if (*p == '\\') p++; else if (*p == '"') return p + 1; }
  return e;
}
static const char *skip_val(const char *p, const char *e) {
  p = ws(p, e);
  if (p >= e) return e;
  if (*p == '"') return skip_str(p, e);
  if (*p == '{' || *p == '[') {
    int depth = 0;
    for (; p < e; p++) {
      if (*p == '"') { p = skip_str(p, e) - 1; continue; }
      if (*p == '{' || *p == '[') depth++;
      if (*p == '}' || *p == ']') { if (--depth == 0) return p + 1; }
    }
    return e;
  }
  while (p < e && *p != ',' && *p != '}' && *p != ']') p++;
  return p;
}
// member finds key in the object [p, e) and returns the value span.
static int member(const char *p, const char *e, const char *key, const char **vs, const char **ve) {
  size_t kl = cstrlen(key);
  p = ws(p, e);
  if (p >= e || *p != '{') return 0;
  p++;
  for (;;) {
    p = ws(p, e);
    if (p >= e || *p != '"') return 0;
    const char *ks = p + 1, *kend = skip_str(p, e) - 1;
    p = ws(kend + 1, e);
    if (p >= e || *p != ':') return 0;
    const char *v = ws(p + 1, e), *vend = skip_val(v, e);
    if ((size_t)(kend - ks) == kl) {
      int eq = 1;
      for (size_t i = 0; i < kl; i++) if (ks[i] != key[i]) { eq = 0; break; }
      if (eq) { *vs = v; *ve = vend; return 1; }
    }
    p = ws(vend, e);
    if (p < e && *p == ',') { p++; continue; }
    return 0;
  }
}

__attribute__((export_name("echo")))
u32 *echo(const char *params, size_t n) {
  const char *vs, *ve;
  if (!member(params, params + n, "value", &vs, &ve)) return ret_str(1, "missing value", 13);
  size_t vl = ve - vs;
  char *out = alloc(vl + 10);
  copy(out, "{\"value\":", 9);
  copy(out + 9, vs, vl);
  out[9 + vl] = '}';
  return ret_str(0, out, vl + 10);
}
__attribute__((export_name("cabi_post_echo"))) void echo_post(u32 *r) { (void)r; heap_reset(); }

// add returns result<sum, string>: [disc u8 @0][sum s64 @8], or the error
// string's [ptr @8][len @12]. The exact sum, or an error: never a wrapped
// value (the conformance row "add").
static u64 add_ret[2];
__attribute__((export_name("add")))
u32 *add(s64 a, s64 b) {
  u32 *r = (u32 *)add_ret;
  s64 s;
  if (__builtin_add_overflow(a, b, &s)) {
    static const char msg[] = "a + b does not fit a 64-bit integer";
    r[0] = 1; r[2] = (u32)msg; r[3] = sizeof msg - 1;
  } else {
    r[0] = 0; *(s64 *)(r + 2) = s;
  }
  return r;
}

__attribute__((export_name("fail")))
u32 *fail(const char *msg, size_t n) {
  const char *pre = "failed as asked: ";
  size_t pl = cstrlen(pre);
  char *out = alloc(pl + n);
  copy(out, pre, pl);
  copy(out + pl, msg, n);
  return ret_str(1, out, pl + n);
}
__attribute__((export_name("cabi_post_fail"))) void fail_post(u32 *r) { (void)r; heap_reset(); }

__attribute__((export_name("sleep")))
u64 sleep_ms(u64 ms) {
  u64 start = host_now();
  while (host_now() - start < ms * 1000000ULL) {}
  return ms;
}

__attribute__((export_name("crash")))
void crash(void) { __builtin_trap(); }

__attribute__((export_name("secret")))
int secret(void) { return 1; }

__attribute__((export_name("nested")))
u32 *nested(const char *params, size_t n) {
  const char *ts, *te, *ps, *pe;
  if (!member(params, params + n, "tool", &ts, &te) || *ts != '"') return ret_str(1, "missing tool", 12);
  if (!member(params, params + n, "params", &ps, &pe)) return ret_str(1, "missing params", 14);
  u32 r[3];
  host_call_tool(ts + 1, (te - ts) - 2, ps, pe - ps, r);
  if (r[0] != 0) return ret_str(1, (const char *)r[1], r[2]);
  char *out = alloc(r[2] + 11);
  copy(out, "{\"result\":", 10);
  copy(out + 10, (const char *)r[1], r[2]);
  out[10 + r[2]] = '}';
  return ret_str(0, out, r[2] + 11);
}
__attribute__((export_name("cabi_post_nested"))) void nested_post(u32 *r) { (void)r; heap_reset(); }

// Minimal Canonical ABI helpers for C freestanding components (no libc).
#pragma once
typedef unsigned int u32;
typedef unsigned long size_t;
typedef unsigned long long u64;
typedef long long s64;

extern unsigned char __heap_base;
static u32 cabi_heap_top;

// A bump allocator: components are instantiated per pool slot and memory is
// reclaimed when the instance goes away; post-return functions reset nothing.
__attribute__((export_name("cabi_realloc")))
void *cabi_realloc(void *old, size_t old_size, size_t align, size_t new_size) {
  if (!cabi_heap_top) cabi_heap_top = (u32)&__heap_base;
  u32 p = (cabi_heap_top + align - 1) & ~(align - 1);
  u32 end = p + new_size;
  u32 have = __builtin_wasm_memory_size(0) * 65536;
  if (end > have) {
    if (__builtin_wasm_memory_grow(0, (end - have + 65535) / 65536) == (size_t)-1) __builtin_trap();
  }
  cabi_heap_top = end;
  unsigned char *d = (unsigned char *)p, *s = (unsigned char *)old;
  for (size_t i = 0; i < old_size && i < new_size; i++) d[i] = s[i];
  return d;
}

static void *alloc(size_t n) { return cabi_realloc(0, 0, 8, n); }

static void copy(char *d, const char *s, size_t n) { for (size_t i = 0; i < n; i++) d[i] = s[i]; }

static size_t cstrlen(const char *s) { size_t n = 0; while (s[n]) n++; return n; }

// A string result area: [disc u8 @0][ptr @4][len @8] for result<string, string>.
static u32 ret_area[4];

static u32 *ret_str(int is_err, const char *p, size_t n) {
  ret_area[0] = is_err; ret_area[1] = (u32)p; ret_area[2] = n;
  return ret_area;
}

// Called from post-return functions: nothing allocated during a call
// outlives it, so the heap starts over.
static void heap_reset(void) { cabi_heap_top = (u32)&__heap_base; }

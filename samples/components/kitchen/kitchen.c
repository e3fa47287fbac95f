// The kitchen-sink component, in C with wasi-libc (built with --wasi-reactor).
// Canonical ABI layouts are written by hand; see docs/components.md.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

// --- allocation: everything allocated during a call is freed in post-return.
static void *allocs[1024];
static int nallocs;

static void *track(void *p) {
  if (p && nallocs < 1024) allocs[nallocs++] = p;
  return p;
}

static void free_all(void) {
  for (int i = 0; i < nallocs; i++) free(allocs[i]);
  nallocs = 0;
}

__attribute__((export_name("cabi_realloc")))
void *cabi_realloc(void *old, size_t old_size, size_t align, size_t new_size) {
  (void)old_size; (void)align; // malloc aligns to 16
  if (old) {
    for (int i = 0; i < nallocs; i++) if (allocs[i] == old) { allocs[i] = allocs[--nallocs]; break; }
  }
  void *p = realloc(old, new_size ? new_size : 1);
  if (!p) abort();
  return track(p);
}

typedef struct { char *ptr; size_t len; } str_t;
typedef struct { str_t *ptr; size_t len; } strlist_t;
typedef struct { uint8_t tag; union { double r; struct { double w, h; } rect; } val; } shape_t;
typedef struct { uint8_t is_some; str_t val; } opt_str_t;
typedef struct {
  str_t name; strlist_t tags; uint8_t color; uint8_t perms; shape_t shape; opt_str_t note; uint32_t count;
} item_t;
typedef struct { uint8_t is_err; union { item_t ok; str_t err; } val; } result_item_t;

_Static_assert(sizeof(shape_t) == 24, "shape layout");
_Static_assert(sizeof(opt_str_t) == 12, "option<string> layout");
_Static_assert(sizeof(item_t) == 64, "item layout");
_Static_assert(sizeof(result_item_t) == 72, "result layout");

static result_item_t ret_item;

static str_t dup(const char *s, size_t n) {
  str_t out = { track(malloc(n ? n : 1)), n };
  memcpy(out.ptr, s, n);
  return out;
}

__attribute__((export_name("samples:kitchen/sink@0.1.0#transform")))
result_item_t *transform(char *name, size_t name_len, str_t *tags, size_t ntags, uint32_t color, uint32_t perms,
                         uint32_t shape_tag, double a, double b, uint32_t note_some, char *note, size_t note_len,
                         uint32_t count) {
  if (count == 0) {
    static const char msg[] = "count must be positive";
    ret_item.is_err = 1;
    ret_item.val.err = dup(msg, sizeof msg - 1);
    return &ret_item;
  }
  item_t *it = &ret_item.val.ok;
  ret_item.is_err = 0;
  it->name = dup(name, name_len);
  for (size_t i = 0; i < name_len; i++)
    if (it->name.ptr[i] >= 'a' && it->name.ptr[i] <= 'z') it->name.ptr[i] -= 32;
  it->tags.len = ntags;
  it->tags.ptr = track(malloc(sizeof(str_t) * (ntags ? ntags : 1)));
  for (size_t i = 0; i < ntags; i++) it->tags.ptr[i] = tags[ntags - 1 - i];
  it->color = (color + 1) % 3;
  it->perms = (~perms) & 7;
  it->shape.tag = shape_tag;
  if (shape_tag == 0) it->shape.val.r = a * 2;
  if (shape_tag == 1) { it->shape.val.rect.w = a * 2; it->shape.val.rect.h = b * 2; }
  it->note.is_some = 1;
  if (note_some) {
    char *buf = track(malloc(note_len + 6));
    memcpy(buf, "note: ", 6);
    memcpy(buf + 6, note, note_len);
    it->note.val = (str_t){ buf, note_len + 6 };
  } else {
    it->note.val = dup("none", 4);
  }
  it->count = count + 1;
  printf("transform %.*s: %zu tags\n", (int)name_len, name, ntags);
  return &ret_item;
}

__attribute__((export_name("cabi_post_samples:kitchen/sink@0.1.0#transform")))
void transform_post(void *r) { (void)r; free_all(); }

static struct { uint32_t sum; uint32_t c; uint8_t flag; int16_t n; } ret_stats;
_Static_assert(sizeof(ret_stats) == 12, "tuple layout");

__attribute__((export_name("samples:kitchen/sink@0.1.0#stats")))
void *stats(uint8_t *data, size_t len, uint32_t c, uint32_t flag, int32_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i < len; i++) sum += data[i];
  ret_stats.sum = sum;
  ret_stats.c = (c >= 'a' && c <= 'z') ? c - 32 : c;
  ret_stats.flag = !flag;
  ret_stats.n = (int16_t)(n * 2);
  return &ret_stats;
}

__attribute__((export_name("cabi_post_samples:kitchen/sink@0.1.0#stats")))
void stats_post(void *r) { (void)r; free_all(); }

static str_t ret_str;

__attribute__((export_name("samples:kitchen/sink@0.1.0#hostile")))
void *hostile(uint32_t kind) {
  switch (kind) {
  case 0: ret_str = (str_t){ (char *)0xFFFFFF00u, 10 }; break;
  case 1: ret_str = dup("\xff\xfe", 2); break;
  case 2: return (void *)0xFFFFFFF0u;
  default: ret_str = dup("ok", 2);
  }
  return &ret_str;
}

__attribute__((export_name("cabi_post_samples:kitchen/sink@0.1.0#hostile")))
void hostile_post(void *r) { (void)r; free_all(); }

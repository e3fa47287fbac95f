// A C freestanding component: no libc, Canonical ABI exports written by hand.
#include "../common/cabi.h"

__attribute__((import_module("aios:sdk/log@0.1.0"), import_name("log")))
void aios_log(int level, const char *msg, size_t len);

__attribute__((export_name("samples:hello/greet@0.1.0#hello")))
u32 *greet_hello(const char *name, size_t name_len, u32 times) {
  if (times == 0) {
    aios_log(2, "hello called with times = 0", 27);
    ret_area[0] = 1; ret_area[1] = (u32)"times must be positive"; ret_area[2] = 22;
    return ret_area;
  }
  size_t n = 7 + name_len * times;
  char *out = cabi_realloc(0, 0, 1, n);
  const char *h = "hello, ";
  for (int i = 0; i < 7; i++) out[i] = h[i];
  for (u32 t = 0; t < times; t++)
    for (size_t i = 0; i < name_len; i++) out[7 + t * name_len + i] = name[i];
  ret_area[0] = 0; ret_area[1] = (u32)out; ret_area[2] = n;
  return ret_area;
}

__attribute__((export_name("cabi_post_samples:hello/greet@0.1.0#hello")))
void greet_hello_post(u32 *r) { (void)r; heap_reset(); }

__attribute__((export_name("add")))
int add(int a, int b) { return a + b; }

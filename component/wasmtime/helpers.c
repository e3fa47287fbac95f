//go:build wasmtime

#include "capi.h"
#include "_cgo_export.h"

wasmtime_error_t *aios_add_func(wasmtime_component_linker_instance_t *li, const char *name, size_t n, uintptr_t id) {
  return wasmtime_component_linker_instance_add_func(li, name, n, (wasmtime_component_func_callback_t)aiosComponentHost,
                                                     (void *)id, NULL);
}

// aios_epoch_cb runs when a store reaches its epoch deadline (one tick
// ahead, set per call): the guest goes on for another tick unless its call
// was cancelled or is past its deadline (aiosComponentEpoch).
static wasmtime_error_t *aios_epoch_cb(wasmtime_context_t *cx, void *data, uint64_t *delta, uint8_t *kind) {
  switch (aiosComponentEpoch((uintptr_t)data)) {
  case 0:
    *delta = 1;
    *kind = 0; // WASMTIME_UPDATE_DEADLINE_CONTINUE
    return NULL;
  case 1:
    return wasmtime_error_new("wasm trap: interrupt (the caller cancelled)");
  }
  return wasmtime_error_new("wasm trap: interrupt (deadline)");
}

wasmtime_store_t *aios_store_new(wasm_engine_t *e, uintptr_t data) {
  wasmtime_store_t *s = wasmtime_store_new(e, (void *)data, NULL);
  wasmtime_store_epoch_deadline_callback(s, aios_epoch_cb, (void *)data, NULL);
  return s;
}

// The guest's stdout and stderr (wasi:cli/stdout, stderr): every write
// goes to aiosComponentOutput on the guest's own thread, with the store's
// instance handle.
static ptrdiff_t aios_stdout_cb(void *data, const unsigned char *buf, size_t n) {
  aiosComponentOutput((uintptr_t)data, 0, (unsigned char *)buf, n);
  return (ptrdiff_t)n;
}

static ptrdiff_t aios_stderr_cb(void *data, const unsigned char *buf, size_t n) {
  aiosComponentOutput((uintptr_t)data, 1, (unsigned char *)buf, n);
  return (ptrdiff_t)n;
}

wasi_config_t *aios_wasi_config_new(uintptr_t data) {
  wasi_config_t *c = wasi_config_new();
  wasi_config_set_stdout_custom(c, aios_stdout_cb, (void *)data, NULL);
  wasi_config_set_stderr_custom(c, aios_stderr_cb, (void *)data, NULL);
  return c;
}

uintptr_t aios_store_data(wasmtime_context_t *c) { return (uintptr_t)wasmtime_context_get_data(c); }

wasm_engine_t *aios_engine_new(bool fuel) {
  wasm_config_t *cfg = wasm_config_new();
  wasmtime_config_epoch_interruption_set(cfg, true);
  // The core features the wazero component runtime has (component.New:
  // core 2.0, extended-const, tail calls), as the core-module engine
  // turns off (runtimes/wasm, NewWasmtimeLoader): the store's limiter does
  // not bound a shared memory (threads), which grew past
  // MemoryLimitPages, and the rest ran here while wazero refused them
  // (TestComponentFeaturesAsWazero).
  wasmtime_config_wasm_threads_set(cfg, false);
  wasmtime_config_wasm_multi_memory_set(cfg, false);
  wasmtime_config_wasm_memory64_set(cfg, false);
  wasmtime_config_wasm_relaxed_simd_set(cfg, false);
  wasmtime_config_wasm_gc_set(cfg, false);
  wasmtime_config_wasm_function_references_set(cfg, false);
  wasmtime_config_wasm_wide_arithmetic_set(cfg, false);
  if (fuel) wasmtime_config_consume_fuel_set(cfg, true);
  return wasm_engine_new_with_config(cfg);
}

// aios_vals_delete drops n values (owned by the caller) and frees the array.
void aios_vals_delete(wasmtime_component_val_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) wasmtime_component_val_delete(&v[i]);
  free(v);
}

//go:build wasmtime

#include "capi.h"
#include "_cgo_export.h"

wasmtime_error_t *aios_add_func(wasmtime_component_linker_instance_t *li, const char *name, size_t n, uintptr_t id) {
  return wasmtime_component_linker_instance_add_func(li, name, n, (wasmtime_component_func_callback_t)aiosComponentHost,
                                                     (void *)id, NULL);
}

wasmtime_store_t *aios_store_new(wasm_engine_t *e, uintptr_t data) { return wasmtime_store_new(e, (void *)data, NULL); }

uintptr_t aios_store_data(wasmtime_context_t *c) { return (uintptr_t)wasmtime_context_get_data(c); }

wasm_engine_t *aios_engine_new(bool fuel) {
  wasm_config_t *cfg = wasm_config_new();
  wasmtime_config_epoch_interruption_set(cfg, true);
  if (fuel) wasmtime_config_consume_fuel_set(cfg, true);
  return wasm_engine_new_with_config(cfg);
}

// aios_vals_delete drops n values (owned by the caller) and frees the array.
void aios_vals_delete(wasmtime_component_val_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) wasmtime_component_val_delete(&v[i]);
  free(v);
}

// Declarations of the part of the wasmtime C API (v39, bundled with
// github.com/bytecodealliance/wasmtime-go/v39 as libwasmtime.a) that this
// package uses: engine, store, errors and the component model. They mirror
// wasmtime's own headers (build/include/wasmtime/component/*.h), which cgo
// cannot reach from this module; the layouts below must match them.
#ifndef AIOS_WASMTIME_CAPI_H
#define AIOS_WASMTIME_CAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct wasm_config_t wasm_config_t;
typedef struct wasm_engine_t wasm_engine_t;
typedef struct wasmtime_error wasmtime_error_t;
typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasi_config_t wasi_config_t;

typedef struct wasm_byte_vec_t {
  size_t size;
  char *data;
} wasm_byte_vec_t;
typedef wasm_byte_vec_t wasm_name_t;

extern void wasm_byte_vec_new(wasm_byte_vec_t *out, size_t size, const char *ptr);
extern void wasm_byte_vec_delete(wasm_byte_vec_t *v);

extern wasm_config_t *wasm_config_new(void);
extern void wasmtime_config_epoch_interruption_set(wasm_config_t *, bool);
extern void wasmtime_config_consume_fuel_set(wasm_config_t *, bool);
extern void wasmtime_config_wasm_threads_set(wasm_config_t *, bool);
extern void wasmtime_config_wasm_multi_memory_set(wasm_config_t *, bool);
extern void wasmtime_config_wasm_memory64_set(wasm_config_t *, bool);
extern void wasmtime_config_wasm_relaxed_simd_set(wasm_config_t *, bool);
extern void wasmtime_config_wasm_gc_set(wasm_config_t *, bool);
extern void wasmtime_config_wasm_function_references_set(wasm_config_t *, bool);
extern void wasmtime_config_wasm_wide_arithmetic_set(wasm_config_t *, bool);
extern wasm_engine_t *wasm_engine_new_with_config(wasm_config_t *);
extern void wasm_engine_delete(wasm_engine_t *);
extern void wasmtime_engine_increment_epoch(wasm_engine_t *);

extern wasmtime_store_t *wasmtime_store_new(wasm_engine_t *, void *data, void (*finalizer)(void *));
extern wasmtime_context_t *wasmtime_store_context(wasmtime_store_t *);
extern void wasmtime_store_limiter(wasmtime_store_t *, int64_t memory_size, int64_t table_elements,
                                   int64_t instances, int64_t tables, int64_t memories);
extern void wasmtime_store_delete(wasmtime_store_t *);
extern void *wasmtime_context_get_data(const wasmtime_context_t *);
extern void wasmtime_context_set_epoch_deadline(wasmtime_context_t *, uint64_t ticks_beyond_current);
extern void wasmtime_store_epoch_deadline_callback(wasmtime_store_t *,
                                                   wasmtime_error_t *(*func)(wasmtime_context_t *, void *data,
                                                                             uint64_t *epoch_deadline_delta,
                                                                             uint8_t *update_kind),
                                                   void *data, void (*finalizer)(void *));
extern wasmtime_error_t *wasmtime_context_set_wasi(wasmtime_context_t *, wasi_config_t *);

extern wasi_config_t *wasi_config_new(void);
extern void wasi_config_set_stdout_custom(wasi_config_t *, ptrdiff_t (*callback)(void *, const unsigned char *, size_t),
                                          void *data, void (*finalizer)(void *));
extern void wasi_config_set_stderr_custom(wasi_config_t *, ptrdiff_t (*callback)(void *, const unsigned char *, size_t),
                                          void *data, void (*finalizer)(void *));

extern wasmtime_error_t *wasmtime_error_new(const char *);
extern void wasmtime_error_message(const wasmtime_error_t *, wasm_name_t *message);
extern void wasmtime_error_delete(wasmtime_error_t *);

// Component model.
typedef struct wasmtime_component_t wasmtime_component_t;
typedef struct wasmtime_component_export_index_t wasmtime_component_export_index_t;
typedef struct wasmtime_component_linker_t wasmtime_component_linker_t;
typedef struct wasmtime_component_linker_instance_t wasmtime_component_linker_instance_t;
typedef struct wasmtime_component_func_type_t wasmtime_component_func_type_t;
typedef struct wasmtime_component_resource_any wasmtime_component_resource_any_t;

typedef struct wasmtime_component_instance {
  uint64_t store_id;
  uint32_t __private;
} wasmtime_component_instance_t;

typedef struct wasmtime_component_func {
  struct {
    uint64_t store_id;
    uint32_t __private1;
  };
  uint32_t __private2;
} wasmtime_component_func_t;

typedef uint8_t wasmtime_component_valkind_t;
#define WASMTIME_COMPONENT_BOOL 0
#define WASMTIME_COMPONENT_S8 1
#define WASMTIME_COMPONENT_U8 2
#define WASMTIME_COMPONENT_S16 3
#define WASMTIME_COMPONENT_U16 4
#define WASMTIME_COMPONENT_S32 5
#define WASMTIME_COMPONENT_U32 6
#define WASMTIME_COMPONENT_S64 7
#define WASMTIME_COMPONENT_U64 8
#define WASMTIME_COMPONENT_F32 9
#define WASMTIME_COMPONENT_F64 10
#define WASMTIME_COMPONENT_CHAR 11
#define WASMTIME_COMPONENT_STRING 12
#define WASMTIME_COMPONENT_LIST 13
#define WASMTIME_COMPONENT_RECORD 14
#define WASMTIME_COMPONENT_TUPLE 15
#define WASMTIME_COMPONENT_VARIANT 16
#define WASMTIME_COMPONENT_ENUM 17
#define WASMTIME_COMPONENT_OPTION 18
#define WASMTIME_COMPONENT_RESULT 19
#define WASMTIME_COMPONENT_FLAGS 20
#define WASMTIME_COMPONENT_RESOURCE 21

struct wasmtime_component_val;
struct wasmtime_component_valrecord_entry;

typedef struct wasmtime_component_vallist {
  size_t size;
  struct wasmtime_component_val *data;
} wasmtime_component_vallist_t;
typedef struct wasmtime_component_valrecord {
  size_t size;
  struct wasmtime_component_valrecord_entry *data;
} wasmtime_component_valrecord_t;
typedef struct wasmtime_component_valtuple {
  size_t size;
  struct wasmtime_component_val *data;
} wasmtime_component_valtuple_t;
typedef struct wasmtime_component_valflags {
  size_t size;
  wasm_name_t *data;
} wasmtime_component_valflags_t;

extern void wasmtime_component_vallist_new_uninit(wasmtime_component_vallist_t *out, size_t size);
extern void wasmtime_component_valrecord_new_uninit(wasmtime_component_valrecord_t *out, size_t size);
extern void wasmtime_component_valtuple_new_uninit(wasmtime_component_valtuple_t *out, size_t size);
extern void wasmtime_component_valflags_new_uninit(wasmtime_component_valflags_t *out, size_t size);

typedef struct {
  wasm_name_t discriminant;
  struct wasmtime_component_val *val;
} wasmtime_component_valvariant_t;

typedef struct {
  bool is_ok;
  struct wasmtime_component_val *val;
} wasmtime_component_valresult_t;

typedef union {
  bool boolean;
  int8_t s8;
  uint8_t u8;
  int16_t s16;
  uint16_t u16;
  int32_t s32;
  uint32_t u32;
  int64_t s64;
  uint64_t u64;
  float f32;
  double f64;
  uint32_t character;
  wasm_name_t string;
  wasmtime_component_vallist_t list;
  wasmtime_component_valrecord_t record;
  wasmtime_component_valtuple_t tuple;
  wasmtime_component_valvariant_t variant;
  wasm_name_t enumeration;
  struct wasmtime_component_val *option;
  wasmtime_component_valresult_t result;
  wasmtime_component_valflags_t flags;
  wasmtime_component_resource_any_t *resource;
} wasmtime_component_valunion_t;

typedef struct wasmtime_component_val {
  wasmtime_component_valkind_t kind;
  wasmtime_component_valunion_t of;
} wasmtime_component_val_t;

typedef struct wasmtime_component_valrecord_entry {
  wasm_name_t name;
  wasmtime_component_val_t val;
} wasmtime_component_valrecord_entry_t;

extern wasmtime_component_val_t *wasmtime_component_val_new(wasmtime_component_val_t *val);
extern void wasmtime_component_val_delete(wasmtime_component_val_t *value);

extern wasmtime_error_t *wasmtime_component_new(const wasm_engine_t *, const uint8_t *buf, size_t len,
                                                wasmtime_component_t **out);
extern wasmtime_error_t *wasmtime_component_serialize(const wasmtime_component_t *, wasm_byte_vec_t *ret);
extern wasmtime_error_t *wasmtime_component_deserialize(const wasm_engine_t *, const uint8_t *buf, size_t len,
                                                        wasmtime_component_t **out);
extern void wasmtime_component_delete(wasmtime_component_t *);
extern wasmtime_component_export_index_t *wasmtime_component_get_export_index(
    const wasmtime_component_t *, const wasmtime_component_export_index_t *instance_export_index,
    const char *name, size_t name_len);
extern void wasmtime_component_export_index_delete(wasmtime_component_export_index_t *);

extern wasmtime_component_linker_t *wasmtime_component_linker_new(const wasm_engine_t *);
extern wasmtime_component_linker_instance_t *wasmtime_component_linker_root(wasmtime_component_linker_t *);
extern wasmtime_error_t *wasmtime_component_linker_instantiate(const wasmtime_component_linker_t *,
                                                               wasmtime_context_t *, const wasmtime_component_t *,
                                                               wasmtime_component_instance_t *out);
extern void wasmtime_component_linker_delete(wasmtime_component_linker_t *);
extern wasmtime_error_t *wasmtime_component_linker_instance_add_instance(
    wasmtime_component_linker_instance_t *, const char *name, size_t name_len,
    wasmtime_component_linker_instance_t **out);
typedef wasmtime_error_t *(*wasmtime_component_func_callback_t)(
    void *, wasmtime_context_t *, const wasmtime_component_func_type_t *, wasmtime_component_val_t *, size_t,
    wasmtime_component_val_t *, size_t);
extern wasmtime_error_t *wasmtime_component_linker_instance_add_func(
    wasmtime_component_linker_instance_t *, const char *name, size_t name_len,
    wasmtime_component_func_callback_t callback, void *data, void (*finalizer)(void *));
extern wasmtime_error_t *wasmtime_component_linker_add_wasip2(wasmtime_component_linker_t *);
extern void wasmtime_component_linker_instance_delete(wasmtime_component_linker_instance_t *);

extern bool wasmtime_component_instance_get_func(const wasmtime_component_instance_t *, wasmtime_context_t *,
                                                 const wasmtime_component_export_index_t *,
                                                 wasmtime_component_func_t *out);
extern wasmtime_error_t *wasmtime_component_func_call(const wasmtime_component_func_t *, wasmtime_context_t *,
                                                      const wasmtime_component_val_t *args, size_t nargs,
                                                      wasmtime_component_val_t *results, size_t nresults);
extern wasmtime_error_t *wasmtime_component_func_post_return(const wasmtime_component_func_t *,
                                                             wasmtime_context_t *);

#endif

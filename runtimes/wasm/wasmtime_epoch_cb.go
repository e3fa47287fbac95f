//go:build wasmtime

package wasm

// The C half of wasmtime_epoch.go (a file with //export may only declare).

/*
#include <stdint.h>

typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_error wasmtime_error_t;
extern wasmtime_error_t *wasmtime_error_new(const char *);
extern int aiosWtEpoch(uintptr_t);

wasmtime_error_t *aios_wt_epoch_cb(wasmtime_context_t *cx, void *data, uint64_t *delta, uint8_t *kind) {
	switch (aiosWtEpoch((uintptr_t)data)) {
	case 0:
		*delta = 1;
		*kind = 0; // WASMTIME_UPDATE_DEADLINE_CONTINUE
		return 0;
	case 1:
		return wasmtime_error_new("wasm trap: interrupt (the caller cancelled)");
	}
	return wasmtime_error_new("wasm trap: interrupt (deadline)");
}
*/
import "C"

// Package pysdk ships the Python SDK (the aios_sdk package under
// sdk/python/aios_sdk, standard library only) inside the host binary, so the
// python runtime can put it on each worker's path without a checkout.
//
// pysdk holds files only. It must never import anything of this module.
package pysdk

import "embed"

// Files holds aios_sdk/*.py.
//
//go:embed aios_sdk/*.py
var Files embed.FS

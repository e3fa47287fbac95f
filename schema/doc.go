// Package schema compiles the JSON Schema documents that tools declare for
// their parameters and results, and validates canonical generic values (see
// abi.Normalize) against them.
//
// Every schema is compiled by github.com/santhosh-tekuri/jsonschema/v6, the
// reference: draft 2020-12 unless the document's $schema names another
// draft; patterns are ECMA-262 regular expressions with the "u" flag
// (github.com/dlclark/regexp2 in ECMAScript and Unicode mode, so \p{L} is a
// Unicode property; .NET syntax regexp2 also reads is refused, and '.',
// \b and \B are rewritten to ECMA-262's meaning: ecmaSyntax); format is an
// annotation, as 2020-12 specifies; $ref to
// anything outside the document is refused (no file or network access).
//
// When the compiled schema uses only the keywords most tool schemas use
// (type, properties, required, additionalProperties, items, prefixItems,
// min/maxItems, uniqueItems, min/maxProperties, enum, const, the numeric
// bounds, multipleOf, min/maxLength and simple patterns), Validate runs a
// compiled fast path that allocates nothing on success and gives the same
// verdict as the reference, and for a value it refuses the error the
// reference names (the deepest failure, worded alike). Any other keyword
// anywhere in the document makes the whole schema use the reference
// validator. An enum of more than eight members is looked up on both.
//
// Diff compares two schemas and lists their changes, each marked breaking
// or not for callers of a parameters or a returns schema (docs/registry.md,
// "Schema diff and the SemVer check").
//
// schema imports abi only; it must never import registry, host, runtimes or
// cmd.
package schema

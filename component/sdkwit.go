package component

import _ "embed"

// SDKWIT is the WIT of the host interfaces components import,
// component/wit/aios-sdk.wit, as this build implements them.
//
//go:embed wit/aios-sdk.wit
var SDKWIT string

// SDKPackage is the package SDKWIT defines.
const SDKPackage = "aios:sdk@0.1.0"

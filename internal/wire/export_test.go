package wire

// For the external probe tests.
var ProbeJSONCost = jsonCost
var ProbeMsgpackCost = msgpackCost

package aigw

// PassedSQL is the gateway's "may this be graded" expression, for the external tests.
const PassedSQL = passedSQL

module ncore.dev/bench

go 1.19

require ncore.dev/ncore v0.0.0

replace ncore.dev/ncore => ../../bindings/go

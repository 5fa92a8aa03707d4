module ncore.dev/ncore

go 1.19

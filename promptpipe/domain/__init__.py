"""Study rules, no I/O: one layer with study.rules (they import each other); of ours imports only promptpipe.errors."""

"""One file per schema change, oldest first; never edit one that has shipped."""

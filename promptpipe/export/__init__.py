"""The study's data for analysis (docs/ARCHITECTURE.md names its modules; each module's docstring says what it does)."""

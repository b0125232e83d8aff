"""The study protocol, as a feature (docs/ARCHITECTURE.md); this module imports nothing."""

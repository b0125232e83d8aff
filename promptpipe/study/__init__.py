"""The study protocol, as a feature (its parts: docs/ARCHITECTURE.md). This module imports nothing, so importing the
rules never pulls in storage."""

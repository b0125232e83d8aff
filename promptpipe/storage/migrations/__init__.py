"""Alembic revisions of the database schema (see promptpipe.storage.schema)."""

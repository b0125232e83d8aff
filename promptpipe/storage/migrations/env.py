"""Alembic's environment: migrations run on the connection :mod:`promptpipe.storage.schema`
hands over, inside its transaction (all revisions of one upgrade in one transaction)."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

from promptpipe.storage import access_tables, models, prompt_tables, queue_tables  # noqa: F401  (registers the tables)
from promptpipe.storage.schema import include_object
from promptpipe.study.store import tables as study_tables  # noqa: F401  (registers the tables)


def run() -> None:
    connection = context.config.attributes["connection"]
    context.configure(
        connection=connection, target_metadata=SQLModel.metadata, include_object=include_object,
        render_as_batch=connection.dialect.name == "sqlite", compare_type=True, transaction_per_migration=False,
        on_version_apply=context.config.attributes.get("on_version_apply"),
    )
    with context.begin_transaction():
        context.run_migrations()


run()

"""A bare Flask app for bench/throughput.py: the floor a pbem request stands on.

Two endpoints, served by the same gunicorn settings as pbem:
  - GET /bare answers "ok" and touches nothing;
  - POST /insert inserts one row into `bench_insert` and answers "ok".

The insert goes through pbem's own engine and write transaction (pbem.storage.db.make_engine
and pbem.storage.db.write_session, so SQLite gets WAL, the same pragmas and BEGIN IMMEDIATE,
PostgreSQL the same pool), on the database named by PBEM_DATABASE_URL. The table is
made beforehand by create_table(url), not by the workers, so two workers starting
together never race to create it.

    gunicorn --pythonpath bench "bare_app:create_app()"
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from flask import Flask, request
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, insert

from pbem.storage.db import make_engine, write_session

METADATA = MetaData()
ROWS = Table(
    "bench_insert",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("note", String(40), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)


def create_table(url: str) -> None:
    """Create (or empty) the bench_insert table at `url`."""
    engine = make_engine(url)
    try:
        METADATA.drop_all(engine)
        METADATA.create_all(engine)
    finally:
        engine.dispose()


def create_app() -> Flask:
    """The bare application on PBEM_DATABASE_URL."""
    app = Flask("bare_app")
    engine = make_engine(os.environ["PBEM_DATABASE_URL"])

    @app.get("/bare")
    def bare() -> str:
        """Answer without touching anything."""
        return "ok"

    @app.post("/insert")
    def insert_one() -> str:
        """Insert one row in its own write transaction."""
        note = request.form.get("note", "")[:40]
        with write_session(engine) as session:
            session.execute(insert(ROWS).values(note=note, created_at=datetime.now(UTC)))
        return "ok"

    return app

"""Catalogue rows seeded from e3.catalog, so that topology rows can reference server types."""

from sqlalchemy import String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from e3.models.base import Base


class ServiceTypeRow(Base):
    __tablename__ = "service_types"
    name: Mapped[str] = mapped_column(String(63), primary_key=True)
    data: Mapped[dict] = mapped_column(JSONB)


class ServerTypeRow(Base):
    __tablename__ = "server_types"
    name: Mapped[str] = mapped_column(String(63), primary_key=True)
    data: Mapped[dict] = mapped_column(JSONB)

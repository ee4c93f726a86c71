"""The OpenAPI 3.1 document, generated from the REST endpoint table."""

from __future__ import annotations

from typing import Any


def build() -> dict[str, Any]:
    from service.rest import openapi_document

    return openapi_document()

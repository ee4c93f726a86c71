"""The OpenAPI 3.1 document, generated from the REST endpoint table."""

from __future__ import annotations

from typing import Any

from service.api.rest import openapi_document


def build() -> dict[str, Any]:

    return openapi_document()

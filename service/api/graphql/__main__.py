"""``python -m service.api.graphql > schema/schema.graphql``: print the schema's SDL (make openapi)."""

import sys

from service.api.graphql.schema import sdl

sys.stdout.write(sdl())

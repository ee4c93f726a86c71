"""The HTTP edge: the Starlette app, its ASGI edge, limits and rate limits, the docs pages,
``/metrics``, REST and GraphQL. Handlers parse, call ``service.games``, and map domain errors to
problem+json. Above ``workers.jobs``, the RQ jobs it enqueues."""

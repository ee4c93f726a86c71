"""Atout's HTTP service: REST and GraphQL over a Redis store."""

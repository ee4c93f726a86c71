"""The API's shapes: pydantic models for REST, Strawberry types for GraphQL."""

"""OpenAPI helpers for routes that read a raw JSON-or-YAML document body."""


def document_body(description: str) -> dict:
    return {"requestBody": {"required": True, "description": description, "content": {
        "application/json": {"schema": {"type": "object"}},
        "application/yaml": {"schema": {"type": "string"}},
    }}}

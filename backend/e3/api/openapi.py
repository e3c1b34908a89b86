"""OpenAPI helpers: a raw JSON-or-YAML document body, and error answers documented as the JSON they are."""


def document_body(description: str) -> dict:
    return {"requestBody": {"required": True, "description": description, "content": {
        "application/json": {"schema": {"type": "object"}},
        "application/yaml": {"schema": {"type": "string"}},
    }}}


ERROR_BODY_REF = {"$ref": "#/components/schemas/ErrorBody"}


def errors_as_json(schema: dict) -> dict:
    """Document every error answer (4xx, 5xx) as the JSON ErrorBody it is. FastAPI files an operation's error
    responses under the route's own media type, so a route answering YAML (an export, a template) documented
    its errors as text/plain."""
    for operation in (op for path in schema.get("paths", {}).values() for op in path.values()):
        for code, response in operation.get("responses", {}).items():
            if code[0] in "45" and ERROR_BODY_REF in (c.get("schema") for c in response.get("content", {}).values()):
                response["content"] = {"application/json": {"schema": ERROR_BODY_REF}}
    return schema


def install_openapi(app) -> None:
    """The app's OpenAPI document, built once by FastAPI and then corrected (errors_as_json)."""
    build = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            app.openapi_schema = errors_as_json(build())
        return app.openapi_schema

    app.openapi = openapi

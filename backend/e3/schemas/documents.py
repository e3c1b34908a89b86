"""Parsing untrusted request bodies (JSON or YAML) into plain Python data, and writing YAML back.

Both formats end up as the same JSON-compatible values (dict, list, str, int, float, bool, None),
so a DAG spec means the same thing whichever way it was sent. Everything an attacker could use
to make the parser do a lot of work (size, nesting, YAML aliases, custom tags) is refused before
or while parsing, never after.
"""

import json
import math
import re

import yaml

from e3.core.errors import BadRequest, FieldError, PayloadTooLarge, UnsupportedMediaType

MAX_BODY_BYTES = 1 << 20  # 1 MiB
MAX_DEPTH = 32  # nested lists/objects

JSON_TYPES = ("application/json",)
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml")
ACCEPTED_TYPES = JSON_TYPES + YAML_TYPES

BODY = "body"  # the FieldError.field for problems with the body as a whole


# --- JSON ------------------------------------------------------------------------------------

# A string, or an unterminated one running to the end of the input. Matching the unterminated
# case too keeps the scan linear: otherwise every escaped quote inside it would restart a match.
_STR_STRING = re.compile(r'"(?:[^"\\]+|\\.)*+(?:"|\\?\Z)', re.S)
_STR_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BYTES_STRING = re.compile(_STR_STRING.pattern.encode(), re.S)
_BYTES_NOT_BRACKET = re.compile(_STR_NOT_BRACKET.pattern.encode())


def json_depth_exceeds(raw: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """True if the JSON text nests lists/objects deeper than `limit`, found without parsing it.

    Cheap enough to run on every request body before json.loads ever sees it, so a body of
    a million `[` costs one regex pass rather than a recursion in the parser.
    """
    if isinstance(raw, str):
        brackets = _STR_NOT_BRACKET.sub("", _STR_STRING.sub("", raw))
    else:
        brackets = _BYTES_NOT_BRACKET.sub(b"", _BYTES_STRING.sub(b"", raw)).decode("ascii")
    if brackets.count("[") + brackets.count("{") <= limit:
        return False
    depth = 0
    for c in brackets:
        if c in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1  # unbalanced input is json.loads's to report, not ours
    return False


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_object(pairs: list) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)  # json.loads would silently keep the last one
        out[key] = value
    return out


def _parse_json(text: str) -> object:
    if json_depth_exceeds(text, MAX_DEPTH):
        raise _too_deep()
    try:
        return json.loads(text, object_pairs_hook=_unique_object, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise BadRequest(
            f"malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}",
            [FieldError(BODY, e.msg, "malformed_json", {"line": e.lineno, "column": e.colno})],
            code="malformed_json",
        ) from None
    except _DuplicateKey as e:
        message = f"duplicate key {e.key!r} in an object"
        raise BadRequest(f"malformed JSON: {message}", [FieldError(BODY, message, "duplicate_key")],
                         code="malformed_json") from None
    except ValueError as e:  # NaN/Infinity, or an integer beyond Python's digit limit
        message = str(e) if "JSON" in str(e) else "a number has too many digits"
        raise BadRequest(f"malformed JSON: {message}", [FieldError(BODY, message, "malformed_json")],
                         code="malformed_json") from None


# --- YAML ------------------------------------------------------------------------------------

# Only the tags that have a JSON equivalent. Timestamps stay strings and `<<` merge keys stay
# plain keys, so YAML cannot express anything a JSON body could not.
_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_TAG + t for t in ("null", "bool", "int", "float", "str")}
_COLLECTION_TAGS = {None, "!", _TAG + "seq", _TAG + "map"}

# libyaml when present: it parses ten times faster than pure Python, which matters at 1 MiB.
_PARSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _JsonResolver(yaml.resolver.Resolver):
    yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag in _SCALAR_TAGS]
        for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
    }


_RESOLVER = _JsonResolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()  # only its stateless scalar converters are used


class _Refused(yaml.MarkedYAMLError):
    def __init__(self, code: str, problem: str, mark):
        super().__init__(problem=problem, problem_mark=mark)
        self.code = code


def _scalar(event: yaml.ScalarEvent) -> object:
    tag = event.tag
    if tag is None or tag == "!":
        tag = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)
    if tag not in _SCALAR_TAGS:
        raise _Refused("yaml_tag_forbidden", f"the YAML tag {tag!r} is not accepted (only JSON types are)",
                       event.start_mark)
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark)
    value = _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, node)
    if isinstance(value, float) and not math.isfinite(value):
        raise _Refused("malformed_yaml", f"{event.value!r}: JSON has no infinity or NaN, so neither do we",
                       event.start_mark)
    return value


def _build(events) -> object:
    """Plain data from a YAML event stream, refusing as it goes.

    Building from events rather than through a Loader means nothing is composed before it is
    checked: the first anchor, over-deep collection or second document stops the parse.
    """
    documents = 0
    root: list = []
    stack: list = [(root, None)]  # (container, pending mapping key or None)
    for event in events:
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _Refused("yaml_alias_forbidden", "YAML anchors and aliases (&, *) are not accepted",
                           event.start_mark)
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise _Refused("malformed_yaml", "expected a single document, but found another", event.start_mark)
            continue
        if isinstance(event, yaml.CollectionStartEvent):
            if event.tag not in _COLLECTION_TAGS:
                raise _Refused("yaml_tag_forbidden",
                               f"the YAML tag {event.tag!r} is not accepted (only JSON types are)", event.start_mark)
            if len(stack) > MAX_DEPTH:
                raise _Refused("too_deeply_nested", f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
            value = {} if isinstance(event, yaml.MappingStartEvent) else []
        elif isinstance(event, yaml.ScalarEvent):
            value = _scalar(event)
        elif isinstance(event, yaml.CollectionEndEvent):
            stack.pop()  # the collection already sits in its parent, filled in place
            continue
        else:
            continue  # stream start/end, document end
        container, key = stack[-1]
        if isinstance(container, list):
            container.append(value)
        elif key is None:
            if isinstance(value, (dict, list)):
                raise _Refused("malformed_yaml", "a mapping key must be a scalar", event.start_mark)
            if value in container:
                raise _Refused("duplicate_key", f"duplicate key {value!r} in a mapping", event.start_mark)
            stack[-1] = (container, (value,))  # boxed, since None is a valid key
        else:
            container[key[0]] = value
            stack[-1] = (container, None)
        if isinstance(event, yaml.CollectionStartEvent):
            stack.append((value, None))
    return root[0] if root else None


def _yaml_error(e: yaml.YAMLError) -> BadRequest:
    code = getattr(e, "code", "malformed_yaml")
    problem = getattr(e, "problem", None) or str(e)
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    extra, where = {}, ""
    if mark is not None:
        extra = {"line": mark.line + 1, "column": mark.column + 1}
        where = f" at line {mark.line + 1}, column {mark.column + 1}"
    elif isinstance(e, yaml.reader.ReaderError):
        problem = f"character U+{e.character:04X} is not allowed in YAML"
        extra, where = {"position": e.position}, f" at character {e.position}"
    top = "malformed_yaml" if code == "duplicate_key" else code
    return BadRequest(f"YAML refused{where}: {problem}", [FieldError(BODY, problem, code, extra)], code=top)


def _parse_yaml(text: str) -> object:
    try:
        return _build(yaml.parse(text, Loader=_PARSER))
    except yaml.YAMLError as e:
        raise _yaml_error(e) from None


# --- entry points ----------------------------------------------------------------------------

def _too_deep() -> BadRequest:
    message = f"the document nests lists/objects deeper than {MAX_DEPTH} levels"
    return BadRequest(message, [FieldError(BODY, message, "too_deeply_nested")], code="too_deeply_nested")


def _media_type(content_type: str | None) -> str:
    if not content_type or not content_type.strip():
        return "json"
    mime, *params = (p.strip() for p in content_type.split(";"))
    mime = mime.lower()
    for p in params:
        name, _, value = p.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            message = f"charset {value.strip()!r} is not supported; send UTF-8"
            raise UnsupportedMediaType(message, [FieldError("content-type", message, "unsupported_charset")])
    if mime in JSON_TYPES or (mime.startswith("application/") and mime.endswith("+json")):
        return "json"
    if mime in YAML_TYPES:
        return "yaml"
    raise UnsupportedMediaType(
        f"content type {mime!r} is not supported; use one of: {', '.join(ACCEPTED_TYPES)}",
        [FieldError("content-type", f"must be one of: {', '.join(ACCEPTED_TYPES)}", "unsupported_media_type",
                    {"valid": list(ACCEPTED_TYPES)})],
    )


def parse_document(raw: bytes, content_type: str | None) -> object:
    """Parse a request body as JSON or YAML (chosen by `content_type`; JSON when absent).

    Raises PayloadTooLarge over MAX_BODY_BYTES, UnsupportedMediaType for other types, and
    BadRequest (code malformed_json, malformed_yaml, too_deeply_nested, yaml_alias_forbidden,
    invalid_encoding or empty_body) with the line and column where known.
    """
    if len(raw) > MAX_BODY_BYTES:
        message = f"the body is {len(raw)} bytes; the limit is {MAX_BODY_BYTES} bytes (1 MiB)"
        raise PayloadTooLarge(message, [FieldError(BODY, message, "payload_too_large", {"max": MAX_BODY_BYTES})])
    kind = _media_type(content_type)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        message = f"the body is not valid UTF-8 (byte {e.start})"
        raise BadRequest(message, [FieldError(BODY, message, "invalid_encoding", {"position": e.start})],
                         code="invalid_encoding") from None
    if not text.strip():
        raise BadRequest("the body is empty", [FieldError(BODY, "a document is required", "empty_body")],
                         code="empty_body")
    return _parse_json(text) if kind == "json" else _parse_yaml(text)


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True  # our own loader refuses aliases, so never write any


def dump_yaml(doc: dict) -> str:
    """`doc` as block-style YAML, keys in their given order, readable by parse_document."""
    return yaml.dump(doc, Dumper=_NoAliasDumper, sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=120)

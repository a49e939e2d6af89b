"""sarif_check.py - checks memtrack's SARIF against SARIF 2.1.0's rules for what memtrack
writes: a JSON Schema (draft 2020-12) of the objects it uses, written from the OASIS
standard's sections on them (3.13 sarifLog to 3.52 stackFrame) with the standard's
constraints (required members, minimums, enums), and every member memtrack does not write
refused, so a misspelt or misplaced one fails here rather than in a code-scanning service.

    python3 sarif_check.py FILE.sarif...      (or import it: check(log) -> list of errors)
"""
import json
import sys

import jsonschema

MESSAGE = {"type": "object", "additionalProperties": False,
           "properties": {"text": {"type": "string"}}, "required": ["text"]}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "additionalProperties": False,
    "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string"},
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "items": {"$ref": "#/$defs/run"}},
    },
    "$defs": {
        "message": MESSAGE,
        # 3.58 notification: what memtrack says of its own run (a partial report)
        "notification": {
            "type": "object", "additionalProperties": False, "required": ["message"],
            "properties": {"level": {"enum": ["none", "note", "warning", "error"]},
                           "message": {"$ref": "#/$defs/message"}}},
        "run": {
            "type": "object", "additionalProperties": False, "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "additionalProperties": False, "required": ["driver"],
                         "properties": {"driver": {"$ref": "#/$defs/driver"}}},
                "originalUriBaseIds": {"type": "object", "additionalProperties": {
                    "$ref": "#/$defs/artifactLocation"}},
                "invocations": {"type": "array", "items": {
                    "type": "object", "required": ["executionSuccessful"],
                    "properties": {"executionSuccessful": {"type": "boolean"},
                                   "toolExecutionNotifications": {"type": "array", "items": {
                                       "$ref": "#/$defs/notification"}},
                                   "properties": {"type": "object"}},
                    "additionalProperties": False}},
                "results": {"type": "array", "items": {"$ref": "#/$defs/result"}},
            },
        },
        "driver": {
            "type": "object", "additionalProperties": False, "required": ["name"],
            "properties": {
                "name": {"type": "string"}, "version": {"type": "string"},
                "rules": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "required": ["id"],
                    "properties": {
                        "id": {"type": "string"},
                        "shortDescription": MESSAGE,
                        "defaultConfiguration": {
                            "type": "object", "additionalProperties": False,
                            "properties": {"level": {"enum": ["none", "note", "warning", "error"]}}},
                    }}},
            },
        },
        "result": {
            "type": "object", "additionalProperties": False, "required": ["message"],
            "properties": {
                "ruleId": {"type": "string"},
                "ruleIndex": {"type": "integer", "minimum": -1},
                "level": {"enum": ["none", "note", "warning", "error"]},
                "message": {"$ref": "#/$defs/message"},
                "locations": {"type": "array", "items": {"$ref": "#/$defs/location"}},
                "relatedLocations": {"type": "array", "items": {"$ref": "#/$defs/location"}},
                "stacks": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/stack"}},
                "codeFlows": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/codeFlow"}},
                "partialFingerprints": {"type": "object", "additionalProperties": {"type": "string"}},
                "properties": {"type": "object"},
            },
        },
        "stack": {  # 3.44: frames required, innermost first
            "type": "object", "additionalProperties": False, "required": ["frames"],
            "properties": {"message": {"$ref": "#/$defs/message"},
                           "frames": {"type": "array", "items": {"$ref": "#/$defs/stackFrame"}}},
        },
        "stackFrame": {  # 3.45
            "type": "object", "additionalProperties": False,
            "properties": {"location": {"$ref": "#/$defs/location"},
                           "module": {"type": "string"},
                           "threadId": {"type": "integer"},
                           "properties": {"type": "object"}},  # 3.8: a property bag
        },
        "codeFlow": {  # 3.36
            "type": "object", "additionalProperties": False, "required": ["threadFlows"],
            "properties": {
                "message": {"$ref": "#/$defs/message"},
                "threadFlows": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "additionalProperties": False, "required": ["locations"],
                    "properties": {
                        "message": {"$ref": "#/$defs/message"},
                        "locations": {"type": "array", "minItems": 1, "items": {
                            "type": "object", "additionalProperties": False,
                            "properties": {"location": {"$ref": "#/$defs/location"},
                                           "stack": {"$ref": "#/$defs/stack"},
                                           "nestingLevel": {"type": "integer", "minimum": 0},
                                           "executionOrder": {"type": "integer", "minimum": -1}}}},
                    }}},
            },
        },
        "location": {  # 3.28
            "type": "object", "additionalProperties": False,
            "properties": {
                "id": {"type": "integer", "minimum": -1},
                "physicalLocation": {"$ref": "#/$defs/physicalLocation"},
                "logicalLocations": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "properties": {"name": {"type": "string"}, "kind": {"type": "string"}}}},
                "message": {"$ref": "#/$defs/message"},
            },
        },
        "physicalLocation": {  # 3.29: an address or an artifact, or both
            "type": "object", "additionalProperties": False,
            "anyOf": [{"required": ["address"]}, {"required": ["artifactLocation"]}],
            "properties": {
                "artifactLocation": {"$ref": "#/$defs/artifactLocation"},
                "region": {"type": "object", "additionalProperties": False,
                           "properties": {"startLine": {"type": "integer", "minimum": 1}}},
                "address": {"type": "object", "additionalProperties": False,
                            "properties": {"absoluteAddress": {"type": "integer", "minimum": -1}}},
            },
        },
        "artifactLocation": {  # 3.4
            "type": "object", "additionalProperties": False,
            "properties": {"uri": {"type": "string", "format": "uri-reference"},
                           "uriBaseId": {"type": "string"}},
        },
    },
}


def check(log):
    """The ways log breaks the rules above, as 'path: message' strings."""
    v = jsonschema.Draft202012Validator(SCHEMA)
    return [f"{list(e.path)}: {e.message}" for e in v.iter_errors(log)]


if __name__ == "__main__":
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    bad = 0
    for name in sys.argv[1:]:
        for e in check(json.load(open(name, encoding="utf-8"))):
            print(f"{name}: {e}")
            bad += 1
    sys.exit(1 if bad else 0)

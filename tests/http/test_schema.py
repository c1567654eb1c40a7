"""The live OpenAPI 3.1 document: shape, and validation of live responses against the schemas
it declares for each operation (refs resolved against the whole document)."""

import copy

import pytest
from jsonschema import Draft202012Validator, FormatChecker, RefResolver
from jsonschema.exceptions import ValidationError

from helpers import DUPLICATE, I1, I2, I3, I8

OPS = {
    "/api/v1/games": "list",
    "/api/v1/games/{id}": "item",
    "/api/v1/incidents": "list",
    "/api/v1/incidents/{id}": "item",
}


@pytest.fixture(scope="module")
def doc(ro_server):
    r = ro_server.get("/api/v1/openapi.json")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("application/json")
    return r.json()


def validator_for(doc, schema):
    resolver = RefResolver(base_uri="", referrer=doc)
    return Draft202012Validator(schema, resolver=resolver, format_checker=FormatChecker())


def response_schema(doc, path, status):
    op = doc["paths"][path]["get"]
    responses = op["responses"]
    resp = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")
    assert resp is not None, (path, status, list(responses))
    while "$ref" in resp:  # a components/responses reference
        ref = resp["$ref"]
        assert ref.startswith("#/")
        node = doc
        for part in ref[2:].split("/"):
            node = node[part]
        resp = node
    return resp["content"]["application/json"]["schema"]


def component(doc, name):
    schemas = doc["components"]["schemas"]
    assert name in schemas, (name, sorted(schemas))
    return {"$ref": f"#/components/schemas/{name}"}


def assert_valid(doc, schema, instance):
    errors = sorted(validator_for(doc, schema).iter_errors(instance), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def assert_invalid(doc, schema, instance):
    with pytest.raises(ValidationError):
        validator_for(doc, schema).validate(instance)


def test_document_basics(doc):
    assert doc["openapi"].startswith("3.1")
    assert doc["info"]["version"] == "1.6.0"
    for p in OPS:
        assert p in doc["paths"], p
        assert "get" in doc["paths"][p]
    for name in ("Game", "Team", "Incident", "IncidentDetail", "Source", "DebateQuestion",
                 "Votes", "Choices", "Pagination", "Error"):
        assert name in doc["components"]["schemas"], name


def test_document_schemas_are_valid_json_schema(doc):
    for name, schema in doc["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("url,path", [
    ("/api/v1/games?limit=100", "/api/v1/games"),
    ("/api/v1/games?status=upcoming", "/api/v1/games"),
    ("/api/v1/games?offset=500", "/api/v1/games"),
    ("/api/v1/incidents?limit=100", "/api/v1/incidents"),
    ("/api/v1/incidents?offset=500", "/api/v1/incidents"),
])
def test_list_responses_validate(ro_server, doc, url, path):
    assert_valid(doc, response_schema(doc, path, 200), ro_server.json(url))


def test_every_game_validates(ro_server, doc):
    schema = response_schema(doc, "/api/v1/games/{id}", 200)
    for g in ro_server.json("/api/v1/games?limit=100")["data"]:
        assert_valid(doc, schema, ro_server.json(f"/api/v1/games/{g['id']}"))
        assert_valid(doc, component(doc, "Game"), g)


def test_every_incident_validates(ro_server, doc):
    schema = response_schema(doc, "/api/v1/incidents/{id}", 200)
    for i in ro_server.json("/api/v1/incidents?limit=100")["data"]:
        body = ro_server.json(f"/api/v1/incidents/{i['id']}")
        assert_valid(doc, schema, body)
        assert_valid(doc, component(doc, "IncidentDetail"), body["data"])
        assert_valid(doc, component(doc, "Incident"), i)
        for s in body["data"]["sources"]:
            assert_valid(doc, component(doc, "Source"), s)
        if body["data"]["debate_question"]:
            assert_valid(doc, component(doc, "DebateQuestion"), body["data"]["debate_question"])
        assert_valid(doc, component(doc, "Votes"), body["data"]["votes"])


@pytest.mark.parametrize("url,path,status", [
    ("/api/v1/games?limit=0", "/api/v1/games", 400),
    ("/api/v1/incidents?foo=1", "/api/v1/incidents", 400),
    ("/api/v1/games/bad%20id", "/api/v1/games/{id}", 400),
    ("/api/v1/games/missing", "/api/v1/games/{id}", 404),
    ("/api/v1/incidents/not-a-uuid", "/api/v1/incidents/{id}", 400),
    (f"/api/v1/incidents/{'1' * 8}-1111-4111-8111-000000000000", "/api/v1/incidents/{id}", 404),
])
def test_error_responses_validate(ro_server, doc, url, path, status):
    r = ro_server.get(url)
    assert r.status_code == status
    assert_valid(doc, response_schema(doc, path, status), r.json())
    assert_valid(doc, component(doc, "Error"), r.json())


def test_incident_redirect_documented(ro_server, doc):
    responses = doc["paths"]["/api/v1/incidents/{id}"]["get"]["responses"]
    assert "308" in responses
    r = ro_server.get(f"/api/v1/incidents/{DUPLICATE}")
    assert r.status_code == 308
    content = responses["308"].get("content", {}).get("application/json")
    if content:
        assert_valid(doc, content["schema"], r.json())


def test_503_documented(doc):
    for p in OPS:
        assert "503" in doc["paths"][p]["get"]["responses"], p


def test_schemas_reject_wrong_instances(ro_server, doc):
    """The document's schemas are not trivially permissive."""
    game = ro_server.json("/api/v1/games/cfb:2025-w13")["data"]
    inc = ro_server.json(f"/api/v1/incidents/{I2}")["data"]
    g_schema, i_schema = component(doc, "Game"), component(doc, "IncidentDetail")
    for mutate in (lambda g: g.pop("id"), lambda g: g.update(status="halftime"),
                   lambda g: g.update(homeScore="24"), lambda g: g.pop("homeTeam"),
                   lambda g: g.update(league="xfl"), lambda g: g["homeTeam"].pop("name"),
                   lambda g: g.update(kickoffTbd=None), lambda g: g.pop("links")):
        bad = copy.deepcopy(game)
        mutate(bad)
        assert_invalid(doc, g_schema, bad)
    for mutate in (lambda i: i.update(category="foul"), lambda i: i.update(status="published"),
                   lambda i: i.update(publication_status="withdrawn"), lambda i: i.pop("votes"),
                   lambda i: i["votes"].pop("rooting"), lambda i: i["votes"]["counts"].pop("unsure"),
                   lambda i: i.update(origin_kind="robot"), lambda i: i.pop("game_id"),
                   lambda i: i["debate_question"].update(question_version=0),
                   lambda i: i["debate_question"].update(label_presentation_version=2),
                   lambda i: i.update(comment_count=-1)):
        bad = copy.deepcopy(inc)
        mutate(bad)
        assert_invalid(doc, i_schema, bad)
    err = {"error": {"code": "invalid_request"}}
    assert_invalid(doc, component(doc, "Error"), err)


def test_parameters_documented(doc):
    def names(path):
        params = doc["paths"][path]["get"].get("parameters", []) + doc["paths"][path].get("parameters", [])
        out = set()
        for p in params:
            while "$ref" in p:
                node = doc
                for part in p["$ref"][2:].split("/"):
                    node = node[part]
                p = node
            out.add(p["name"])
        return out
    common = {"limit", "offset", "season", "week", "team_id", "league", "season_type", "from",
              "to", "status", "sort"}
    assert names("/api/v1/games") == common
    assert names("/api/v1/incidents") == common | {"game_id", "category", "has_verdict"}
    assert "id" in names("/api/v1/games/{id}") and "id" in names("/api/v1/incidents/{id}")


def test_variety_validates(ro_server, doc):
    """Incidents with nulls, version-2 questions, no question and no slug all validate."""
    schema = component(doc, "IncidentDetail")
    for iid in (I1, I2, I3, I8):
        assert_valid(doc, schema, ro_server.json(f"/api/v1/incidents/{iid}")["data"])

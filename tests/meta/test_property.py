"""Property-based: generated requests to every display-configuration route never get a 500,
and every answer matches its declared schema and content type."""
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance

PATHS = "^/v1/(screens|ticker|display/overlays|display/settings|display/themes|config|alerts|meta)"


def test_no_server_errors_and_declared_shapes(api):
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", api.client.app).include(path_regex=PATHS)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25
    calls = []

    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=20, suppress_health_check=list(HealthCheck), deadline=None, database=None)
        def check(case):
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {api.key}"}
            response = case.call()
            calls.append(response.status_code)
            assert response.status_code < 500, (case.method, case.path, case.body, response.text[:300])
            case.validate_response(response, checks=[not_a_server_error, response_schema_conformance,
                                                     content_type_conformance])

        check()
    assert len(calls) >= 10 * len(operations)
    assert any(200 <= status < 300 for status in calls) and any(status == 400 for status in calls)

"""Schemathesis generates requests from the OpenAPI description and checks every answer against it:
no server errors, only documented status codes, bodies that match their schemas."""
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from trainer.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application)

pytestmark = pytest.mark.slow


@pytest.fixture
def bearer(exercises, django_user_model, settings):
    from exercises.services import api_token_create

    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    settings.API_SUBMISSIONS_PER_MINUTE = 10_000
    user = django_user_model.objects.create_user("fuzz", password="not-used-here-123")
    return api_token_create(user=user)[1]


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_matches_its_openapi_description(case, bearer):
    # Every check but "schema-valid data is accepted": a submission's limit is in UTF-8 bytes and it must be
    # storable Unicode (no NUL, no lone surrogate), which JSON Schema cannot state; those get 413 and 422.
    case.call_and_validate(headers={"Authorization": f"Bearer {bearer}"}, excluded_checks=[positive_data_acceptance])

"""Fixtures for the live server: the site's ASGI app served by uvicorn, and two learners with instances."""
import pytest

from exercises.services import training_instance_for


@pytest.fixture
def two_learners(django_user_model):
    alice = training_instance_for(user=django_user_model.objects.create_user("alice", password="x" * 12))
    bob = training_instance_for(user=django_user_model.objects.create_user("bob", password="x" * 12))
    return alice, bob



import pytest
from django.conf import settings

from exercises.content_files import load_exercises
from exercises.services import exercise_sync
from lessons.services import SyncReport


@pytest.fixture
def exercises(db):
    """The real exercise files, synced; returns {slug: Exercise}."""
    bundle = load_exercises(settings.EXERCISE_CONTENT_DIR)
    assert not bundle.problems, bundle.problems
    exercise_sync(bundle=bundle, report=SyncReport())
    from exercises.models import Exercise

    return {e.slug: e for e in Exercise.objects.all()}

"""The demo instructor exists for local development only."""
import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command


@pytest.mark.django_db
def test_refused_outside_development(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="development only"):
        call_command("create_demo_instructor")
    assert not get_user_model().objects.filter(username="instructor").exists()


@pytest.mark.django_db
def test_created_in_development_and_can_log_in(settings, client, capsys):
    settings.DEBUG = True
    call_command("create_demo_instructor")
    assert "password 'learn-mcp-errors'" in capsys.readouterr().out
    user = get_user_model().objects.get(username="instructor")
    assert user.groups.filter(name="instructors").exists()
    assert client.login(username="instructor", password="learn-mcp-errors")

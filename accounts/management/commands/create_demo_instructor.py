"""`python manage.py create_demo_instructor`: a known login for local development, never in production."""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

USERNAME = "instructor"
PASSWORD = "learn-mcp-errors"


class Command(BaseCommand):
    help = "Create (or reset) the demo instructor account. Refuses to run unless DEBUG is on."

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError("The demo instructor is for development only; set DJANGO_DEBUG=1 to create it.")
        user, created = get_user_model().objects.get_or_create(username=USERNAME)
        user.set_password(PASSWORD)
        user.is_staff = True
        user.save()
        user.groups.add(Group.objects.get_or_create(name="instructors")[0])
        verb = "Created" if created else "Reset"
        self.stdout.write(f"{verb} demo instructor: username '{USERNAME}', password '{PASSWORD}'")

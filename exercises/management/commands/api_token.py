"""`python manage.py api_token USERNAME`: print a new API token for that user, creating the user if needed."""
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from exercises.services import api_token_create


class Command(BaseCommand):
    help = "Print a new API token for USERNAME (the user is created, without a password, if missing)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="Command-line token", help="A label shown on the API tokens page.")

    def handle(self, *args, username: str, name: str, **options):
        User = get_user_model()
        field = User._meta.get_field(User.USERNAME_FIELD)
        try:
            field.run_validators(username)
        except Exception as error:
            raise CommandError(f"{username!r} is not a valid username: {' '.join(getattr(error, 'messages', [str(error)]))}")
        user, created = User.objects.get_or_create(**{User.USERNAME_FIELD: username})
        if created:
            user.set_unusable_password()
            user.save()
            self.stderr.write(f"Created user {username!r} (no password; set one with `manage.py changepassword`).")
        _, raw = api_token_create(user=user, name=name)
        self.stdout.write(raw)

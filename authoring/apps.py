from django.apps import AppConfig


class AuthoringConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "authoring"
    verbose_name = "Authoring in the browser"

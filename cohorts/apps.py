from django.apps import AppConfig


class CohortsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "cohorts"
    verbose_name = "Cohorts and gradebooks"

from django.apps import AppConfig


class ExercisesConfig(AppConfig):
    """Graded work: exercises, submissions, graders, the training MCP server and the sandbox (issues 3 to 5)."""

    name = "exercises"
    default_auto_field = "django.db.models.BigAutoField"

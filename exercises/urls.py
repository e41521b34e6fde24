from django.urls import path

from . import views

app_name = "exercises"

urlpatterns = [
    path("exercises/", views.exercise_index, name="exercise-list"),
    path("exercises/<slug:slug>/", views.exercise_detail, name="exercise-detail"),
    path("exercises/<slug:slug>/training_db.py", views.exercise_training_db, name="exercise-training-db"),
    path("exercises/<slug:slug>/submit/", views.submission_create, name="submission-create"),
    path("submissions/<int:pk>/", views.submission_detail, name="submission-detail"),
    path("playground/", views.playground, name="playground"),
    path("playground/calls/", views.playground_calls, name="playground-calls"),
    path("playground/mode/", views.playground_mode, name="playground-mode"),
    path("playground/clear/", views.playground_clear, name="playground-clear"),
    path("playground/rotate/", views.playground_rotate_token, name="playground-rotate"),
    path("account/api-tokens/", views.api_tokens, name="api-tokens"),
    path("account/api-tokens/<int:pk>/revoke/", views.api_token_revoke, name="api-token-revoke"),
]

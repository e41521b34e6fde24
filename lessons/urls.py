from django.urls import path

from . import views

app_name = "lessons"

urlpatterns = [
    path("lessons/", views.lesson_index, name="lesson-list"),
    path("lessons/<slug:slug>/", views.lesson_detail, name="lesson-detail"),
    path("questions/", views.question_index, name="question-list"),
    path("questions/<slug:content_id>/", views.question_detail, name="question-detail"),
    path("questions/<slug:content_id>/answer/", views.question_answer, name="question-answer"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("exam/", views.exam_index, name="exam-index"),
    path("exam/start/", views.exam_start, name="exam-start"),
    path("exam/<int:pk>/", views.exam_attempt, name="exam-attempt"),
    path("exam/<int:pk>/save/", views.exam_save, name="exam-save"),
    path("exam/<int:pk>/submit/", views.exam_submit, name="exam-submit"),
]

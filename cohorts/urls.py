from django.urls import path

from . import views

app_name = "cohorts"

urlpatterns = [
    path("teach/cohorts/", views.cohort_list, name="cohort-list"),
    path("teach/cohorts/<int:pk>/", views.cohort_detail, name="cohort-detail"),
    path("teach/cohorts/<int:pk>/invite/rotate/", views.cohort_invite_rotate, name="invite-rotate"),
    path("teach/cohorts/<int:pk>/assignments/", views.assignment_create, name="assignment-create"),
    path("teach/cohorts/<int:pk>/assignments/<int:assignment_pk>/delete/", views.assignment_delete,
         name="assignment-delete"),
    path("teach/cohorts/<int:pk>/gradebook/", views.cohort_gradebook, name="gradebook"),
    path("teach/cohorts/<int:pk>/gradebook.csv", views.cohort_gradebook_csv, name="gradebook-csv"),
    path("teach/cohorts/<int:pk>/learners/<int:user_id>/", views.cohort_learner, name="learner"),
    path("teach/cohorts/<int:pk>/exams/<int:attempt_pk>/", views.exam_report_for_instructor, name="exam-report"),
    path("join/", views.join_by_code, name="join-by-code"),
    path("join/<str:code>/", views.join, name="join"),
    path("cohorts/", views.my_cohorts, name="my-cohorts"),
]

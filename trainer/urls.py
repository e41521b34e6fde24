from django.contrib import admin
from django.urls import include, path

from exercises.api import api
from lessons.views import home

urlpatterns = [
    path("", home, name="home"),
    path("", include("lessons.urls")),
    path("", include("exercises.urls")),
    path("api/v1/", api.urls),
    path("", include("cohorts.urls")),
    path("", include("authoring.urls")),
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
]

handler404 = "trainer.errors.not_found"
handler403 = "trainer.errors.permission_denied"
handler500 = "trainer.errors.server_error"

from django.urls import path

from . import views

app_name = "authoring"

urlpatterns = [
    path("teach/", views.teach_home, name="teach-home"),
    path("teach/content/", views.content_list, name="content-list"),
    path("teach/content/new/<slug:kind>/", views.item_create, name="item-create"),
    path("teach/content/<int:pk>/", views.item_edit, name="item-edit"),
    path("teach/content/<int:pk>/publish/", views.item_publish, name="item-publish"),
    path("teach/content/<int:pk>/history/", views.item_history, name="item-history"),
    path("teach/content/<int:pk>/preview/", views.item_preview, name="item-preview"),
    path("teach/content/files/<slug:kind>/<slug:content_id>/", views.file_item, name="file-item"),
    path("teach/content/export.zip", views.content_export, name="content-export"),
    path("teach/content/import/", views.content_import, name="content-import"),
    path("teach/markdown-preview/", views.markdown_preview, name="markdown-preview"),
    path("teach/exercises/<slug:slug>/regrade/", views.regrade_start, name="regrade-start"),
    path("teach/regrades/<int:pk>/", views.regrade_detail, name="regrade-detail"),
]

"""Sign-up; log in and log out are Django's own views."""
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("lessons:dashboard")
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)  # the user_logged_in signal carries the session's progress over
        messages.success(request, f"Welcome, {user.username}. Your progress so far is saved to your account.")
        return redirect("lessons:dashboard")
    return render(request, "accounts/signup.html", {"form": form}, status=400 if form.errors else 200)

"""Sign-up; log in and log out are Django's own views."""
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        next_url = ""  # an invite link sends people back to it; anywhere else is refused
    if request.user.is_authenticated:
        return redirect(next_url or "lessons:dashboard")
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)  # the user_logged_in signal carries the session's progress over
        messages.success(request, f"Welcome, {user.username}. Your progress so far is saved to your account.")
        return redirect(next_url or "lessons:dashboard")
    return render(request, "accounts/signup.html", {"form": form, "next": next_url},
                  status=400 if form.errors else 200)

"""Who may teach: instructors (members of the Instructors group, granted by staff in the admin) and staff.

Learners are everyone else. Checks live here and in selectors, never in templates.
"""
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied

INSTRUCTORS_GROUP = "Instructors"


def is_instructor(user) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_staff:
        return True
    cached = getattr(user, "_is_instructor", None)
    if cached is None:
        cached = user._is_instructor = user.groups.filter(name=INSTRUCTORS_GROUP).exists()
    return cached


def instructor_required(view):
    """Anonymous visitors are sent to log in; signed-in learners get a 403 page that says why."""
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_instructor(request.user):
            raise PermissionDenied("This page is for instructors. Ask a staff member to add you to the "
                                   "Instructors group if you teach a cohort.")
        return view(request, *args, **kwargs)
    return wrapper


def roles(request) -> dict:
    """Template context: whether to show the Teach menu."""
    return {"is_instructor": is_instructor(request.user)}

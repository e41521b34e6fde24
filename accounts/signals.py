"""Carry an anonymous learner's progress over to the account they sign up or log in with."""
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from lessons.learners import SESSION_KEY
from lessons.services import progress_transfer


@receiver(user_logged_in)
def carry_over_progress(sender, request, user, **kwargs) -> None:
    if request is not None and hasattr(request, "session"):
        progress_transfer(learner_key=request.session.get(SESSION_KEY, ""), user=user)
